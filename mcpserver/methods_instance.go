package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Team mode's instances (store/instance.go): the sweep that ends the
// sessions of an instance that stopped beating, and the status Settings ▸
// Team and `switchboard team status` show.
const (
	MethodInstanceSweepLost Name[InstanceSweepArgs, InstanceSwept] = "instance.sweep_lost"
	MethodTeamStatus        Name[NoArgs, TeamStatus]               = "team.status"
)

// InstanceSweepArgs are the arguments of instance.sweep_lost.
type InstanceSweepArgs struct {
	GraceMillis int64 `json:"grace_ms" jsonschema:"how long an instance may go without a heartbeat before it is lost, in milliseconds"`
}

// InstanceSwept is what instance.sweep_lost did.
type InstanceSwept struct {
	// Lost are the instances found silent, now marked lost.
	Lost []string `json:"lost"`
	// Sessions are the sessions they ran, ended as lost.
	Sessions []string `json:"sessions"`
	// Released are the packets whose leases went back to the queue.
	Released []string `json:"released"`
}

// TeamStatus is the result of team.status.
type TeamStatus struct {
	// Team is set when the store is shared (PostgreSQL).
	Team bool `json:"team"`
	// Database is where the store is: a file, or a URL without its
	// password.
	Database string `json:"database"`
	// Instance is this instance's id ("" with bbolt).
	Instance  string         `json:"instance,omitempty"`
	Instances []TeamInstance `json:"instances"`
	// Queue is the shared queue's packets by state.
	Queue map[store.PacketState]int `json:"queue"`
}

// TeamInstance is one instance as team.status shows it.
type TeamInstance struct {
	store.Instance
	// State is "running", "silent" (no heartbeat within the grace yet not
	// swept), "stopped" or "lost".
	State string `json:"state"`
	// Sessions is how many live sessions it runs.
	Sessions int  `json:"sessions"`
	Self     bool `json:"self,omitempty"`
}

// DefaultInstanceGrace is how long an instance may be silent before another
// ends its sessions: several missed heartbeats, so a busy machine or a
// slow server is not taken for a dead one.
const DefaultInstanceGrace = 30 * time.Second

// maxInstanceGrace bounds the sweep's grace: a day means "never", for
// nobody.
const maxInstanceGrace = 24 * time.Hour

func (r *Registry) registerInstances() {
	r.Register(Define(MethodInstanceSweepLost, On(Global, store.CapAdmin), Hidden|Internal,
		"End, as lost, the sessions of every instance that stopped beating, their leases back in the queue; idempotent, any instance may run it.",
		func(c *Call, in InstanceSweepArgs) (InstanceSwept, error) {
			grace := time.Duration(in.GraceMillis) * time.Millisecond
			if grace <= 0 || grace > maxInstanceGrace {
				return InstanceSwept{}, store.Deny(store.CodeInvalidArgument, "grace_ms must be above 0 and at most a day")
			}
			out := InstanceSwept{Lost: []string{}, Sessions: []string{}, Released: []string{}}
			all, err := c.Tx.Instances()
			if err != nil {
				return out, err
			}
			self := c.Tx.InstanceID()
			for _, in := range all {
				if in.ID == self || !in.Silent(c.Tx.Now(), grace) {
					continue
				}
				lost, err := c.Tx.SessionsOfInstance(in.ID)
				if err != nil {
					return out, err
				}
				reason := fmt.Sprintf("its instance (%s on %s) stopped heartbeating", in.ID, in.Host)
				for _, s := range lost {
					// Not with the app: nothing on that machine will
					// resume it, so its leases go back now.
					ended, err := r.endSession(c, SessionEndArgs{SessionID: s.ID, Lost: true, Reason: reason})
					if err != nil {
						return out, fmt.Errorf("end session %s of lost instance %s: %w", s.ID, in.ID, err)
					}
					out.Sessions = append(out.Sessions, s.ID)
					out.Released = append(out.Released, ended.Released...)
				}
				if _, err := c.Tx.MarkInstanceLost(in.ID); err != nil {
					return out, err
				}
				out.Lost = append(out.Lost, in.ID)
			}
			return out, nil
		}))
	r.Register(Define(MethodTeamStatus, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The shared store: where it is, the instances seen (each with its state and live sessions) and the shared queue.",
		func(c *Call, _ NoArgs) (TeamStatus, error) {
			self := c.Tx.InstanceID()
			out := TeamStatus{Team: self != "", Database: r.db.Path(), Instance: self,
				Instances: []TeamInstance{}, Queue: c.Tx.PacketCounts()}
			all, err := c.Tx.Instances()
			if err != nil {
				return out, err
			}
			for _, in := range all {
				ti := TeamInstance{Instance: in, Self: in.ID == self}
				switch {
				case in.LostAt != nil:
					ti.State = "lost"
				case in.StoppedAt != nil:
					ti.State = "stopped"
				case in.Silent(c.Tx.Now(), r.instanceGrace):
					ti.State = "silent"
				default:
					ti.State = "running"
				}
				ss, err := c.Tx.SessionsOfInstance(in.ID)
				if err != nil {
					return out, err
				}
				ti.Sessions = len(ss)
				out.Instances = append(out.Instances, ti)
			}
			return out, nil
		}))
}

// BeatInstance records this instance's heartbeat (team mode) and returns
// its record as it was before. It is no method: nobody calls it, and a
// record every few seconds from every instance would bury the audit log,
// so it writes outside the registry's calls, as the migrations do.
func (r *Registry) BeatInstance(ctx context.Context, b store.InstanceBeat) (store.Instance, error) {
	var was store.Instance
	err := r.db.Update(ctx, func(tx *store.Tx) (err error) { was, err = tx.BeatInstance(b); return err })
	if err != nil {
		return was, fmt.Errorf("instance heartbeat: %w", err)
	}
	return was, nil
}

// StopInstance records that this instance stopped cleanly, so that no other
// takes it for lost.
func (r *Registry) StopInstance() error {
	if err := r.db.Update(context.Background(), func(tx *store.Tx) error { return tx.StopInstance() }); err != nil {
		return fmt.Errorf("record the instance's stop: %w", err)
	}
	return nil
}

// SweepLostInstances ends the sessions of the instances that stopped
// beating (instance.sweep_lost). It reads first and calls only when one
// is silent, so that the sweep every heartbeat runs is no audit record.
func (r *Registry) SweepLostInstances(ctx context.Context) (InstanceSwept, error) {
	silent := false
	err := r.db.View(ctx, func(tx *store.Tx) error {
		all, err := tx.Instances()
		for _, in := range all {
			silent = silent || in.ID != tx.InstanceID() && in.Silent(tx.Now(), r.instanceGrace)
		}
		return err
	})
	if err != nil || !silent {
		return InstanceSwept{}, err
	}
	return Invoke(ctx, r, OperatorPrincipal(), TransportSupervisor, MethodInstanceSweepLost,
		InstanceSweepArgs{GraceMillis: r.instanceGrace.Milliseconds()})
}
