package app

// The Audit window's check of the hash chain.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// runVerify checks the hash chain off the Fyne goroutine, calling
// audit.verify over t.
func (w *auditWindow) runVerify(t mcpserver.Transport) {
	w.chain.Importance = widget.MediumImportance
	w.chain.SetText(labelVerifying)
	w.verify.Disable()
	finished := make(chan struct{})
	start := w.now()
	go func() {
		// The check reports no progress of its own: say at least that
		// it still runs, once a second.
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-finished:
				return
			case <-w.stopRefresh:
				return
			case <-t.C:
				secs := int(w.now().Sub(start).Seconds())
				w.do(func() {
					if strings.HasPrefix(w.chain.Text, labelVerifying) {
						w.chain.SetText(fmt.Sprintf("%s %d s", labelVerifying, secs))
					}
				})
			}
		}
	}()
	go func() {
		v, err := w.verifyAuditChain(t)
		took := w.now().Sub(start).Round(time.Millisecond)
		close(finished)
		w.do(func() {
			w.verify.Enable()
			if err != nil {
				w.chain.Importance = widget.DangerImportance
				w.chain.SetText(fmt.Sprintf("Hash chain NOT verified after %d good records: %v", v.Records, err))
				return
			}
			w.chain.Importance = widget.SuccessImportance
			w.chain.SetText(fmt.Sprintf("Hash chain verified: %d records, last hash %s (%s)", v.Records, v.LastHash, took))
		})
	}()
}

// verifyAuditChain checks the whole hash chain through audit.verify: an
// audited call like any other, whose long read runs outside the shared
// write transaction (it is a Slow method), so agents are not held up.
func (w *auditWindow) verifyAuditChain(t mcpserver.Transport) (store.AuditVerification, error) {
	out, err := call(w.g, t, mcpserver.MethodAuditVerify, mcpserver.NoArgs{})
	if err != nil {
		return store.AuditVerification{}, err
	}
	if !out.OK {
		return out.Verification, errors.New(out.Problem)
	}
	return out.Verification, nil
}
