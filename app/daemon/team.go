package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Team mode: the store on PostgreSQL, shared with other instances
// (docs/team-mode.md). The instance's id is made once and kept in its
// local data folder, so that a restart is the same instance: it ends its
// own sessions of the run before, and nobody else's.

// DefaultHeartbeat is how often an instance in team mode records that it
// runs, and looks for instances that stopped.
const DefaultHeartbeat = 5 * time.Second

// instanceFile is the file in the data folder that holds the instance id,
// and instanceLockFile the one a running instance holds locked.
const (
	instanceFile     = "instance"
	instanceLockFile = "instance.lock"
)

// errInstanceLocked is a data folder whose instance another process runs.
var errInstanceLocked = errors.New("the data folder's instance is running in another process")

// lockInstance holds the data folder's instance for this process until
// release, whatever the store: bbolt's file lock guards only the file, so
// a team-mode start and a bbolt start on one data folder would otherwise
// both run, supervising agents in the same worktrees; and two team-mode
// processes of one instance would each end the other's sessions as left
// over from an earlier run.
func lockInstance(p Paths) (release func(), err error) {
	if err := os.MkdirAll(p.Data, 0o700); err != nil {
		return nil, fmt.Errorf("make the data folder: %w", err)
	}
	return tryLock(filepath.Join(p.Data, instanceLockFile))
}

// InstanceID returns the id of the instance whose data folder p is, making
// it on first use.
func InstanceID(p Paths) (string, error) {
	// The CLI may come first, before any start made the folder.
	if err := os.MkdirAll(p.Data, 0o700); err != nil {
		return "", fmt.Errorf("make the data folder: %w", err)
	}
	path := filepath.Join(p.Data, instanceFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		id := store.NewInstanceID()
		// O_EXCL: two first starts at once agree on the one written.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.WriteString(id + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return "", fmt.Errorf("write the instance id: %w", err)
			}
			return id, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write the instance id: %w", err)
		}
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("read the instance id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if err := store.CheckInstanceID(id); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// OpenStore opens the store cfg names: PostgreSQL when DatabaseURL is set,
// as the instance of p, else the bbolt file in p. lockTimeout bounds the
// wait for bbolt's lock.
func OpenStore(p Paths, databaseURL string, lockTimeout time.Duration) (*store.DB, error) {
	if databaseURL == "" {
		return store.Open(p.DB(), store.Options{LockTimeout: lockTimeout})
	}
	id, err := InstanceID(p)
	if err != nil {
		return nil, err
	}
	return store.OpenPostgres(databaseURL, store.Options{Instance: id})
}

// beat records the first heartbeat, before the startup's sweeps: from then
// on the instance is running in every other instance's eyes.
func (d *Daemon) beat(ctx context.Context) error {
	host, _ := os.Hostname()
	was, err := d.reg.BeatInstance(ctx, store.InstanceBeat{Host: host, PID: os.Getpid(), Version: d.cfg.Version, Started: d.started})
	if err != nil {
		return err
	}
	if was.LostAt != nil && was.StartedAt.Equal(d.started.UTC()) {
		// Silent for longer than the grace while running (a suspended
		// laptop, a server away): another instance ended its sessions.
		d.log.Warn("team: another instance took this one for lost and ended its sessions; stopping their agents", "by", was.LostBy, "at", was.LostAt)
		d.stopSweptAgents(ctx)
	}
	return nil
}

// stopSweptAgents stops the agents whose sessions another instance ended
// as lost while this one was silent. Their tokens are revoked and their
// leases given back, so they can only fail; left running they would show
// as working. Each stops as Stop does (interrupt, grace, then the whole
// process set), in the background: the heartbeat goes on meanwhile.
func (d *Daemon) stopSweptAgents(ctx context.Context) {
	agents := d.reg.Agents()
	running := agents.List()
	// One read for them all: a transaction per agent would hold the
	// heartbeat up for as many round trips on a shared database.
	ended := map[string]bool{}
	if err := d.db.View(ctx, func(tx *store.Tx) error {
		for _, info := range running {
			s, err := tx.Session(info.SessionID)
			if err != nil {
				return err
			}
			ended[info.SessionID] = s.EndedAt != nil
		}
		return nil
	}); err != nil {
		d.log.Warn("team: read the sessions that may have been swept", "err", err)
		return
	}
	for _, info := range running {
		s, ok := agents.Get(info.SessionID)
		if !ended[info.SessionID] || !ok {
			continue
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			if _, err := s.Stop(ctx, false); err != nil && !errors.Is(err, supervisor.ErrEnded) {
				d.log.Warn("team: stop a swept session's agent", "session", info.SessionID, "err", err)
			}
		}()
	}
}

// heartbeat beats every interval and sweeps the instances that stopped
// beating, until ctx ends. A failed beat is logged and tried again at the
// next tick: the server may be restarting.
//
// An instance sweeps only once it has itself reached the database for a
// whole grace: while the server was away nobody could beat, and right
// after it comes back every other instance looks silent. Ending their
// sessions then would turn a database restart into every agent of every
// other instance lost. The first start waits the same way, which gives
// instances that start together the time to beat.
func (d *Daemon) heartbeat(ctx context.Context, every, grace time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	failing := false
	reachedSince := d.started // Start's beat reached the database
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := d.beat(ctx)
		if err == nil && !failing && time.Since(reachedSince) > grace {
			var swept mcpserver.InstanceSwept
			if swept, err = d.reg.SweepLostInstances(ctx); err == nil && len(swept.Lost) > 0 {
				d.log.Warn("team: ended the sessions of instances that stopped heartbeating",
					"instances", swept.Lost, "sessions", swept.Sessions, "released", swept.Released)
			}
		}
		if err == nil && failing {
			reachedSince = time.Now()
		}
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			d.log.Error("team: heartbeat", "err", err)
			failing = true
		case err == nil && failing:
			d.log.Info("team: heartbeat again")
			failing = false
		}
	}
}
