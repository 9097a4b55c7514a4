package mcpserver

import (
	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodResourcePacket  Name[WorkGetArgs, PacketResource] = "resource.packet"
	MethodResourceSession Name[SessionArg, SessionResource] = "resource.session"
)

// What switchboard://sessions/{id} holds of a session's history; the rest
// is a tools or feed call away.
const (
	// sessionResourceReports is how many of the newest reports it holds.
	sessionResourceReports = 50
	// sessionResourceTrace is how many of the first trace events it holds;
	// the replay feed (/events) has them all.
	sessionResourceTrace = tracePageSize
)

// SessionArg names one session.
type SessionArg struct {
	SessionID string `json:"session_id"`
}

// PacketResource is the switchboard://packets/{id} resource.
type PacketResource struct {
	Packet    store.Packet     `json:"packet"`
	Artifacts []store.Artifact `json:"artifacts"`
}

// SessionResource is the switchboard://sessions/{id} resource. It holds no
// token material: the session names its token by key id only, which is
// public.
type SessionResource struct {
	Session store.Session  `json:"session"`
	Reports []store.Report `json:"reports" jsonschema:"the newest 50 reports, oldest first"`
	// TraceEvents are the first events of the trace; TraceLastSeq says how
	// many there are in all (sequence numbers are gap-free from 1). A
	// report event's report comes without its text (up to 16 KiB each,
	// 500 of them would make the resource megabytes): Reports and the
	// replay feed have it.
	TraceEvents  []store.TraceEvent `json:"trace_events" jsonschema:"the first 500 trace events, in order; report texts are in reports and the replay feed"`
	TraceLastSeq uint64             `json:"trace_last_seq" jsonschema:"the seq of the session's last trace event: more follow trace_events when it is greater"`
}

// registerWorkResources registers the reads behind the packet and session
// resource templates, and trace.read, which opens the session replay feed.
func (r *Registry) registerWorkResources() {
	r.Register(Define(MethodResourcePacket, On(Packet, store.CapWorkRead), Internal|ReadOnly,
		"switchboard://packets/{id}",
		func(c *Call, in WorkGetArgs) (PacketResource, error) {
			p, err := c.Tx.Packet(in.PacketID)
			if err != nil {
				return PacketResource{}, err
			}
			arts, err := c.Tx.Artifacts(p.ID)
			if err != nil {
				return PacketResource{}, err
			}
			return PacketResource{Packet: p, Artifacts: arts}, nil
		}))
	r.Register(Define(MethodResourceSession, On(Session, store.CapAuditRead), Internal|ReadOnly,
		"switchboard://sessions/{id}",
		func(c *Call, in SessionArg) (SessionResource, error) {
			s, err := c.Tx.Session(in.SessionID)
			if err != nil {
				return SessionResource{}, err
			}
			// Reading a timeline is not an event of it (as trace.read).
			if c.SessionID == s.ID && c.Principal.SessionID != s.ID {
				c.SessionID = ""
			}
			reports, err := c.Tx.Reports(s.ID, sessionResourceReports)
			if err != nil {
				return SessionResource{}, err
			}
			evs, err := c.Tx.TraceEvents(s.ID, 0, sessionResourceTrace)
			if err != nil {
				return SessionResource{}, err
			}
			for i := range evs {
				if r := evs[i].Report; r != nil {
					short := *r
					short.Text = ""
					evs[i].Report = &short
				}
			}
			return SessionResource{Session: s, Reports: reports, TraceEvents: evs, TraceLastSeq: c.Tx.LastTraceSeq(s.ID)}, nil
		}))
	r.registerTraceRead()
}
