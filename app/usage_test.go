package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// recordUsage records a session's usage as the daemon does.
func recordUsage(t *testing.T, g *gui, ses string, u store.Usage) {
	t.Helper()
	b, _ := json.Marshal(mcpserver.AgentUsageArgs{SessionID: ses, Usage: u})
	if res := g.core.Registry().Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, string(mcpserver.MethodAgentUsage), b); res.Err != nil {
		t.Fatal(res.Err)
	}
}

// The Sessions window shows a session's usage in its list line and its
// status line; the Work window's detail shows a packet's.
func TestUsageShown(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Counted"})
	ses := workAgentCall(t, g, "session.report", mcpserver.ReportArgs{Kind: "ready", RepositoryID: repoID}).Value.(mcpserver.ReportResult).SessionID
	recordUsage(t, g, ses, store.Usage{Source: profile.UsageClaude, InputTokens: 12345, OutputTokens: 1234})
	aw := workAgentCall(t, g, "work.await_packet", mcpserver.AwaitArgs{RepositoryID: repoID, SessionID: ses, WaitSeconds: 1}).Value.(mcpserver.AwaitResult)
	recordUsage(t, g, ses, store.Usage{Source: profile.UsageClaude, InputTokens: 14000, OutputTokens: 1500})
	workAgentCall(t, g, "work.complete", mcpserver.CompleteArgs{PacketID: aw.Packet.ID, SessionID: ses, LeaseID: aw.LeaseID, Summary: "done"})

	waitUntil(t, "the packet done", func() bool {
		return w.rowOf("Counted") >= 0 && workGetPacket(t, g, p.ID).Packet.State == store.PacketDone
	})
	w.selectTitle(t, "Counted")
	waitUntil(t, "the packet's usage in its detail", func() bool {
		found := false
		w.on(func() {
			if w.selected != p.ID || w.facts == nil {
				return
			}
			for _, it := range w.facts.Items {
				if l, ok := it.Widget.(*widget.Label); ok && it.Text == "Usage" && l.Text == "14k in · 1.5k out (claude)" {
					found = true
				}
			}
		})
		return found
	})

	g.showSessions(ses)
	s := g.sessions
	waitUntil(t, "the session's usage in its status line", func() bool {
		return s != nil && s.selected == ses && strings.Contains(s.status.Text, " · 14k in · 1.5k out")
	})
	if got := usageText(&store.Usage{Source: profile.UsageNone}); got != "no usage reported" {
		t.Errorf("a CLI without usage shows %q", got)
	}
	s.win.Close()
}
