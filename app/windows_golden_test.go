package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// Golden images of the windows, dark and light, in testdata/<window>/
// (sessions_golden_test.go, work_golden_test.go, audit_golden_test.go,
// settings_golden_test.go). They are drawn over fixed data, so that they
// change only when a window does: the real store makes random ids and
// stamps the wall clock, so the windows here read from a registry whose
// read methods answer from a goldenData, the windows that measure ages
// get a fixed clock, and the local time zone is UTC. A window changed on
// purpose fails its test and leaves the new image under testdata/failed/
// (fyne's test.AssertImageMatches): look at it, and if it is right, move
// it over the old one and delete testdata/failed/.

func TestMain(m *testing.M) {
	// The sandbox helper of the confined agents some tests start.
	confine.RunHelper(os.Args)
	// The windows print times in the local zone: the goldens are drawn in
	// UTC wherever the tests run.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// goldenNow is "now" in the goldens.
var goldenNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func goldenClock() time.Time { return goldenNow }

// goldenAgo is goldenNow less d.
func goldenAgo(d time.Duration) time.Time { return goldenNow.Add(-d) }

// goldenAgoPtr is goldenAgo as a pointer, for the optional times.
func goldenAgoPtr(d time.Duration) *time.Time {
	t := goldenAgo(d)
	return &t
}

func goldenPtr[T any](v T) *T { return &v }

// eachGoldenTheme runs fn once in the dark theme and once in the light
// one, each in a fresh test app; name is "dark" or "light".
func eachGoldenTheme(t *testing.T, fn func(t *testing.T, a fyne.App, name string)) {
	for _, v := range []struct {
		name  string
		theme fyne.Theme
	}{{"dark", theme.DarkTheme()}, {"light", theme.LightTheme()}} {
		t.Run(v.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			a.Settings().SetTheme(v.theme)
			fn(t, a, v.name)
		})
	}
}

// goldenData is what the windows read: every list and detail the registry
// would give them, with fixed ids and times.
type goldenData struct {
	repos     []store.Repository
	sessions  []store.Session
	details   map[string]mcpserver.SessionDetail // by session id
	trace     map[string][]store.TraceEvent      // by session id
	packets   []store.Packet
	artifacts map[string][]store.Artifact // by packet id
	profiles  []supervisor.ProfileInfo
	tokens    mcpserver.TokenList
	team      mcpserver.TeamStatus
	sandbox   mcpserver.SandboxSettings
	// audit is the log audit.query and audit.verify read: fixed records
	// in a database of their own, so that the windows' own audited calls
	// (with their measured durations) never show.
	audit *store.DB
}

// newGoldenGUI is a GUI whose registry answers the windows' reads from d
// (agents is the supervisor of the live terminals, or nil). The calls are
// still checked and audited like any other, into a database with a fixed
// clock; they change nothing, so no window re-reads.
func newGoldenGUI(t testing.TB, a fyne.App, d *goldenData, agents *supervisor.Supervisor) *gui {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{Now: goldenClock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}
	reg := mcpserver.NewRegistry(db, mcpserver.Options{Env: envOf{b}, Agents: agents})
	const flags = mcpserver.Hidden | mcpserver.ReadOnly
	def := func(m mcpserver.Method) { reg.Register(m) }

	def(mcpserver.Define(mcpserver.MethodRepositoryList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.RepositoryList, error) {
		return mcpserver.RepositoryList{Repositories: d.repos}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodSandboxGet, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.SandboxSettings, error) {
		return d.sandbox, nil
	}))
	def(mcpserver.Define(mcpserver.MethodSessionList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ store.SessionFilter) (mcpserver.SessionListResult, error) {
		return mcpserver.SessionListResult{Sessions: d.sessions}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodSessionGet, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, in mcpserver.SessionGetArgs) (mcpserver.SessionDetail, error) {
		s, ok := d.details[in.SessionID]
		if !ok {
			return s, store.Deny(store.CodeInvalidArgument, "no session %s", in.SessionID)
		}
		return s, nil
	}))
	def(mcpserver.Define(mcpserver.MethodQuestionList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.QuestionListResult, error) {
		out := mcpserver.QuestionListResult{Questions: []store.Question{}}
		for _, s := range d.sessions {
			out.Questions = append(out.Questions, d.details[s.ID].Questions...)
		}
		return out, nil
	}))
	def(mcpserver.Define(mcpserver.MethodAgentAttach, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.AgentArgs) (struct{}, error) {
		return struct{}{}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodTraceRead, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, in mcpserver.TraceReadArgs) (mcpserver.TraceReadResult, error) {
		evs := d.trace[in.SessionID]
		var last uint64
		if len(evs) > 0 {
			last = evs[len(evs)-1].Seq
		}
		return mcpserver.TraceReadResult{Events: evs, LastSeq: last}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodWorkConflicts, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.RepoScope) (mcpserver.WorkConflicts, error) {
		return mcpserver.WorkConflicts{Conflicts: []mcpserver.PacketConflicts{}}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodWorkList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, f store.PacketFilter) (mcpserver.WorkList, error) {
		out := []store.Packet{}
		for _, p := range d.packets {
			if f.RepositoryID == "" || p.RepositoryID == f.RepositoryID {
				out = append(out, p)
			}
		}
		return mcpserver.WorkList{Packets: out}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodWorkGet, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, in mcpserver.WorkGetArgs) (mcpserver.WorkGetResult, error) {
		for _, p := range d.packets {
			if p.ID == in.PacketID {
				return mcpserver.WorkGetResult{Packet: p, Artifacts: d.artifacts[p.ID]}, nil
			}
		}
		return mcpserver.WorkGetResult{}, store.Deny(store.CodeInvalidArgument, "no packet %s", in.PacketID)
	}))
	def(mcpserver.Define(mcpserver.MethodProfileList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.ProfileList, error) {
		return mcpserver.ProfileList{Profiles: d.profiles}, nil
	}))
	def(mcpserver.Define(mcpserver.MethodTokenList, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.TokenListArgs) (mcpserver.TokenList, error) {
		return d.tokens, nil
	}))
	def(mcpserver.Define(mcpserver.MethodTeamStatus, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.TeamStatus, error) {
		return d.team, nil
	}))
	def(mcpserver.Define(mcpserver.MethodAuditQuery, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, f store.AuditFilter) (mcpserver.AuditRecords, error) {
		var out mcpserver.AuditRecords
		err := d.audit.View(context.Background(), func(tx *store.Tx) (err error) {
			out.Records, err = tx.QueryAudit(f)
			return err
		})
		return out, err
	}))
	def(mcpserver.Define(mcpserver.MethodAuditVerify, mcpserver.On(mcpserver.Global, store.CapAdmin), flags, "", func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.AuditVerifyResult, error) {
		var out mcpserver.AuditVerifyResult
		err := d.audit.View(context.Background(), func(tx *store.Tx) (err error) {
			out.Verification, err = tx.VerifyAudit()
			return err
		})
		out.OK = err == nil
		return out, err
	}))

	log, _ := newTestLogger()
	core := &fakeCore{Backend: b, reg: reg, agents: agents}
	if d.team.Team {
		// Connected from Settings: the Team tab offers Disconnect.
		core.database, core.databaseFrom = d.team.Database, daemon.DatabaseFromSettings
	}
	return &gui{app: a, core: core, log: log, quit: func() {}}
}

// The fixed ids the goldens show: as long as the store's, so that the
// windows' columns and ellipses are tried with real lengths.
const (
	goldenRepoSwitchboard = "repo_5f3a1c9e2b7d4a6081fe"
	goldenRepoWebsite     = "repo_b81d22f03c6e4a9d5b17"
	goldenRepoInfra       = "repo_0c94e7aa1d5b3f628e40"

	goldenSesLive     = "ses_7f2c91d04ab35e6810c2"
	goldenSesExternal = "ses_3b9e04c7d1a2f58e6b07"
	goldenSesEnded    = "ses_d41c8e2f09b7a6351d4e"
	goldenSesLost     = "ses_9a0f63b1e8c2d4a7f015"

	goldenKeyClient  = "3f9a0c2e7b14d658"
	goldenKeyLive    = "a17e5d0c93b2f486"
	goldenKeyEnded   = "c4d82e1f60a97b35"
	goldenKeyCI      = "e05b9f3a2c781d64"
	goldenKeyRevoked = "7b3e0d9c51fa2e80"
)

// goldenRepos are three repositories; newest last, as repository.list
// gives them.
func goldenRepos() []store.Repository {
	return []store.Repository{
		{ID: goldenRepoSwitchboard, Name: "switchboard", Path: "/home/ada/src/switchboard", CreatedAt: goldenAgo(30 * 24 * time.Hour)},
		{ID: goldenRepoWebsite, Name: "website", Path: "/home/ada/src/website", CreatedAt: goldenAgo(12 * 24 * time.Hour)},
		{ID: goldenRepoInfra, Name: "infra", Path: "/home/ada/work/platform/infra", CreatedAt: goldenAgo(2 * 24 * time.Hour)},
	}
}
