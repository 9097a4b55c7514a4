package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// cell is one measured row: a server at one client concurrency.
type cell struct {
	server  string
	conc    int
	calls   int
	elapsed time.Duration
	p50     time.Duration
	p99     time.Duration
	// mallocs and bytes are runtime.MemStats deltas (Mallocs, TotalAlloc)
	// over the measured window: everything this process allocated,
	// clients included, plus what a server in a child process reported.
	mallocs uint64
	bytes   uint64
	// memUnknown says that the server runs in a child process that does
	// not report its allocations (the real daemon): mallocs and bytes are
	// the clients' alone and are not shown.
	memUnknown bool
	// cpu is the user+system CPU time over the window of this process and
	// of the server's child process, if it has one; hasCPU says whether
	// the platform reports both.
	cpu    time.Duration
	hasCPU bool
}

func (c cell) rate() float64          { return float64(c.calls) / c.elapsed.Seconds() }
func (c cell) allocsPerCall() float64 { return float64(c.mallocs) / float64(c.calls) }
func (c cell) bytesPerCall() float64  { return float64(c.bytes) / float64(c.calls) }
func (c cell) cpuPerCall() time.Duration {
	if c.calls == 0 {
		return 0
	}
	return c.cpu / time.Duration(c.calls)
}

// protocolVersion is what a 2025-06-18 client sends on every request after
// initialize. The servers are stateless, so no initialize is needed first.
const protocolVersion = "2025-06-18"

// okNeedle is in every successful answer: Switchboard's structuredContent
// and the baselines' copies of it.
const okNeedle = `"ok":true`

// worker is one client connection's loop: a prepared request, reused
// buffers and the latencies it measured.
type worker struct {
	client *http.Client
	url    string
	// header is built once and never changed: a request may be reused
	// once its response body is closed, and so may its header map.
	header http.Header
	body   []byte
	// okNeedle and idNeedle must be in the answer: success, and the
	// request's id echoed.
	okNeedle []byte
	idNeedle []byte
	buf      bytes.Buffer
	lat      []time.Duration
	// direct, when set, makes the call in this process instead of over
	// HTTP (the rows that leave the transport out).
	direct func(context.Context) error
}

func newWorker(client *http.Client, t *target, id int) *worker {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", protocolVersion)
	if t.auth != "" {
		h.Set("Authorization", t.auth)
	}
	return &worker{
		client:   client,
		url:      t.url,
		header:   h,
		body:     fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"status","arguments":{}}}`, id),
		okNeedle: []byte(okNeedle),
		idNeedle: fmt.Appendf(nil, `"id":%d,`, id),
	}
}

// call makes one request, reads the whole answer and checks it.
func (w *worker) call(ctx context.Context) error {
	if w.direct != nil {
		start := time.Now()
		if err := w.direct(ctx); err != nil {
			return err
		}
		w.lat = append(w.lat, time.Since(start))
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(w.body))
	if err != nil {
		return err
	}
	req.Header = w.header
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	body := w.buf.Bytes()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, w.okNeedle) || !bytes.Contains(body, w.idNeedle) {
		return fmt.Errorf("unexpected answer: HTTP %d: %s", resp.StatusCode, excerpt(body, 400))
	}
	w.lat = append(w.lat, d)
	return nil
}

func excerpt(b []byte, n int) string {
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// runPhase runs every worker in its own goroutine until the deadline. The
// first failure stops all of them and is returned.
func runPhase(ctx context.Context, workers []*worker, until time.Time) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(until) {
				if err := w.call(ctx); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// measure loads t with conc keep-alive clients calling status: a warm-up,
// then the measured window with memory and CPU counters read around it.
func measure(ctx context.Context, t *target, conc int, warmup, dur time.Duration) (cell, error) {
	return measureWith(ctx, t, conc, warmup, dur, func(client *http.Client, id int) (*worker, error) {
		return newWorker(client, t, id), nil
	})
}

// newClient is the HTTP client of conc keep-alive connections every load
// uses.
func newClient(conc int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		// Loopback: no proxy from the environment, no compression.
		Proxy:               nil,
		MaxIdleConns:        conc,
		MaxIdleConnsPerHost: conc,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}}
}

// measureWith is measure with workers made by newW (id counts from 1), for
// loads that send another call than status.
func measureWith(ctx context.Context, t *target, conc int, warmup, dur time.Duration, newW func(client *http.Client, id int) (*worker, error)) (cell, error) {
	client := newClient(conc)
	defer client.CloseIdleConnections()
	fail := func(err error) (cell, error) {
		return cell{}, fmt.Errorf("%s at concurrency %d: %w", t.name, conc, err)
	}
	workers := make([]*worker, conc)
	for i := range workers {
		w, err := newW(client, i+1)
		if err != nil {
			return fail(err)
		}
		workers[i] = w
	}
	if warmup > 0 {
		if err := runPhase(ctx, workers, time.Now().Add(warmup)); err != nil {
			return fail(err)
		}
	}
	// Size each latency slice from the warm-up's pace, so that growing it
	// does not count as the servers' allocations.
	for _, w := range workers {
		want := 1024
		if warmup > 0 {
			want += int(1.5 * float64(len(w.lat)) * dur.Seconds() / warmup.Seconds())
		}
		w.lat = make([]time.Duration, 0, want)
	}

	runtime.GC()
	var before, after runtime.MemStats
	var c0, c1 childCounters
	if err := c0.read(t); err != nil {
		return fail(err)
	}
	runtime.ReadMemStats(&before)
	cpu0, hasCPU := processCPU()
	start := time.Now()
	err := runPhase(ctx, workers, start.Add(dur))
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&after)
	if rerr := c1.read(t); err == nil {
		err = rerr
	}
	if err != nil {
		return fail(err)
	}

	var all []time.Duration
	for _, w := range workers {
		all = append(all, w.lat...)
	}
	if len(all) == 0 {
		return fail(fmt.Errorf("no call completed in %v", dur))
	}
	slices.Sort(all)
	return cell{
		server:     t.name,
		conc:       conc,
		calls:      len(all),
		elapsed:    elapsed,
		p50:        percentile(all, 0.50),
		p99:        percentile(all, 0.99),
		mallocs:    after.Mallocs - before.Mallocs + c1.mallocs - c0.mallocs,
		bytes:      after.TotalAlloc - before.TotalAlloc + c1.bytes - c0.bytes,
		memUnknown: t.pid != 0 && t.memStats == nil,
		cpu:        cpu1 - cpu0 + c1.cpu - c0.cpu,
		hasCPU:     hasCPU && c0.hasCPU && c1.hasCPU,
	}, nil
}

// childCounters are a child server's counters at one moment; all zero (and
// hasCPU true) for a server in this process.
type childCounters struct {
	cpu            time.Duration
	hasCPU         bool
	mallocs, bytes uint64
}

func (c *childCounters) read(t *target) error {
	c.hasCPU = true
	if t.pid == 0 {
		return nil
	}
	c.cpu, c.hasCPU = childCPU(t.pid)
	if t.memStats != nil {
		var err error
		if c.mallocs, c.bytes, err = t.memStats(); err != nil {
			return err
		}
	}
	return nil
}

// percentile is the nearest-rank percentile of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
