package store

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// createSession creates a session in its own Update.
func createSession(t testing.TB, db *DB, spec SessionSpec) Session {
	t.Helper()
	var s Session
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		s, err = tx.CreateSession(spec)
		return err
	})
	return s
}

func getSession(t testing.TB, db *DB, id string) Session {
	t.Helper()
	var s Session
	mustView(t, db, func(tx *Tx) error {
		var err error
		s, err = tx.Session(id)
		return err
	})
	return s
}

func endSession(db *DB, id string, state SessionState, code *int, reason string) (Session, error) {
	var s Session
	err := db.Update(context.Background(), func(tx *Tx) error {
		var err error
		s, err = tx.EndSession(id, state, code, reason)
		return err
	})
	return s, err
}

func exitCodeOf(i int) *int { return &i }

func TestCreateSession(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var repo Repository
	var tok Token
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		if repo, _, err = tx.RegisterRepository("r", "/src/r"); err != nil {
			return err
		}
		tok, _, err = tx.CreateToken(TokenSpec{Kind: KindSession, SessionID: "ses_named"})
		return err
	})
	for _, tc := range []struct {
		name      string
		spec      SessionSpec
		wantCode  Code
		wantState SessionState
	}{
		{"supervised", SessionSpec{Kind: SessionSupervised, RepositoryID: repo.ID, Profile: "claude", PID: 0}, "", SessionStarting},
		{"external", SessionSpec{Kind: SessionExternal}, "", SessionRunning},
		{"external with repository", SessionSpec{Kind: SessionExternal, RepositoryID: repo.ID}, "", SessionRunning},
		{"named with its token", SessionSpec{ID: "ses_named", Kind: SessionSupervised, RepositoryID: repo.ID, TokenKeyID: tok.KeyID, PID: 42}, "", SessionStarting},
		{"name taken", SessionSpec{ID: "ses_named", Kind: SessionSupervised}, CodeInvalidArgument, ""},
		{"name without prefix", SessionSpec{ID: "named", Kind: SessionSupervised}, CodeInvalidArgument, ""},
		{"prefix only", SessionSpec{ID: "ses_", Kind: SessionSupervised}, CodeInvalidArgument, ""},
		{"name too long", SessionSpec{ID: "ses_" + strings.Repeat("x", 300), Kind: SessionSupervised}, CodeInvalidArgument, ""},
		{"no kind", SessionSpec{}, CodeInvalidArgument, ""},
		{"unknown kind", SessionSpec{Kind: "daemon"}, CodeInvalidArgument, ""},
		{"unregistered repository", SessionSpec{Kind: SessionSupervised, RepositoryID: "repo_00000000000000000000"}, CodeRepoNotRegistered, ""},
		{"unknown token", SessionSpec{Kind: SessionSupervised, TokenKeyID: "0123456789abcdef"}, CodeInvalidArgument, ""},
		{"profile too long", SessionSpec{Kind: SessionSupervised, Profile: strings.Repeat("p", 257)}, CodeInvalidArgument, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.Add(time.Second)
			var s Session
			err := db.Update(context.Background(), func(tx *Tx) error {
				var err error
				s, err = tx.CreateSession(tc.spec)
				return err
			})
			if got := CodeOf(err); got != tc.wantCode {
				t.Fatalf("CreateSession(%+v) code %q (%v), want %q", tc.spec, got, err, tc.wantCode)
			}
			if err != nil {
				return
			}
			if tc.spec.ID != "" && s.ID != tc.spec.ID {
				t.Errorf("id %q, want %q", s.ID, tc.spec.ID)
			}
			if tc.spec.ID == "" && !regexp.MustCompile(`^ses_[0-9a-f]{20}$`).MatchString(s.ID) {
				t.Errorf("id %q", s.ID)
			}
			want := Session{
				ID: s.ID, Kind: tc.spec.Kind, RepositoryID: tc.spec.RepositoryID, Profile: tc.spec.Profile,
				TokenKeyID: tc.spec.TokenKeyID, State: tc.wantState, PID: tc.spec.PID, StartedAt: clock.Now(),
			}
			if !equalSession(s, want) {
				t.Errorf("returned %+v, want %+v", s, want)
			}
			if got := getSession(t, db, s.ID); !equalSession(got, want) {
				t.Errorf("stored %+v, want %+v", got, want)
			}
		})
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Session("ses_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Session(unknown) = %v, want not_found", err)
		}
		if _, err := tx.Session(""); CodeOf(err) != CodeNotFound {
			t.Errorf("Session(\"\") = %v, want not_found", err)
		}
		return nil
	})
}

// equalSession compares sessions field by field, times with Equal.
func equalSession(a, b Session) bool {
	eqTime := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	eqInt := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	eqReport := func(x, y *Report) bool { return x == nil && y == nil || x != nil && y != nil && equalReport(*x, *y) }
	return a.ID == b.ID && a.Kind == b.Kind && a.RepositoryID == b.RepositoryID && a.Profile == b.Profile &&
		a.TokenKeyID == b.TokenKeyID && a.State == b.State && a.PID == b.PID && a.StartedAt.Equal(b.StartedAt) &&
		eqTime(a.EndedAt, b.EndedAt) && eqInt(a.ExitCode, b.ExitCode) && a.EndReason == b.EndReason &&
		eqTime(a.LastReportAt, b.LastReportAt) && eqReport(a.LastReport, b.LastReport)
}

// A supervised session from creation to exit, and the second end that
// changes nothing.
func TestSessionLifecycle(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var repo Repository
	var s Session
	var tok Token
	// As the registry starts an agent: the id first, the session token that
	// carries it, then the session, in one transaction.
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		if repo, _, err = tx.RegisterRepository("r", "/src/r"); err != nil {
			return err
		}
		id := NewID("ses")
		if tok, _, err = tx.CreateToken(TokenSpec{Kind: KindSession, SessionID: id}); err != nil {
			return err
		}
		s, err = tx.CreateSession(SessionSpec{ID: id, Kind: SessionSupervised, RepositoryID: repo.ID, Profile: "shell", TokenKeyID: tok.KeyID})
		return err
	})
	started := clock.Now()
	if s.State != SessionStarting || s.PID != 0 {
		t.Fatalf("new session %+v", s)
	}

	steps := []struct {
		name      string
		do        func(tx *Tx) (Session, error)
		wantState SessionState
		wantPID   int
	}{
		{"running", func(tx *Tx) (Session, error) { return tx.MarkSessionRunning(s.ID, 4242, 0) }, SessionRunning, 4242},
		{"running again, no pid", func(tx *Tx) (Session, error) { return tx.MarkSessionRunning(s.ID, 0, 0) }, SessionRunning, 4242},
		{"running again, new pid", func(tx *Tx) (Session, error) { return tx.MarkSessionRunning(s.ID, 4343, 0) }, SessionRunning, 4343},
	}
	for _, st := range steps {
		clock.Add(time.Second)
		var got Session
		mustUpdate(t, db, func(tx *Tx) error {
			var err error
			got, err = st.do(tx)
			return err
		})
		if got.State != st.wantState || got.PID != st.wantPID || !got.StartedAt.Equal(started) {
			t.Errorf("%s: %+v", st.name, got)
		}
		if stored := getSession(t, db, s.ID); !equalSession(stored, got) {
			t.Errorf("%s: stored %+v, returned %+v", st.name, stored, got)
		}
	}

	clock.Add(time.Minute)
	ended := clock.Now()
	long := strings.Repeat("é", 700) // 1400 bytes: cut to 1 KiB on a character boundary
	got, err := endSession(db, s.ID, SessionEnded, exitCodeOf(3), long)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != SessionEnded || got.EndedAt == nil || !got.EndedAt.Equal(ended) || got.ExitCode == nil || *got.ExitCode != 3 {
		t.Errorf("ended session %+v", got)
	}
	if got.EndReason != strings.Repeat("é", 512) {
		t.Errorf("end reason of %d bytes, want 1024 bytes of é", len(got.EndReason))
	}
	mustView(t, db, func(tx *Tx) error {
		tk, _, err := tx.Token(tok.KeyID)
		if err != nil || tk.RevokedAt == nil || !tk.RevokedAt.Equal(ended) {
			t.Errorf("session token after end: %+v, %v; want revoked at %v", tk, err, ended)
		}
		if live, err := tx.RunningSessions(); err != nil || len(live) != 0 {
			t.Errorf("RunningSessions after end = %+v, %v", live, err)
		}
		return nil
	})

	// The first end stands: a later end (the crash sweep, a second exit
	// notice) returns it unchanged.
	clock.Add(time.Minute)
	for _, state := range []SessionState{SessionLost, SessionEnded} {
		again, err := endSession(db, s.ID, state, exitCodeOf(9), "again")
		if err != nil || !equalSession(again, got) {
			t.Errorf("EndSession(%s) again = %+v, %v; want the first end %+v", state, again, err, got)
		}
	}
	if stored := getSession(t, db, s.ID); !equalSession(stored, got) {
		t.Errorf("stored after second end %+v, want %+v", stored, got)
	}

	for _, tc := range []struct {
		id    string
		state SessionState
		want  Code
	}{
		{s.ID, SessionRunning, CodeInvalidArgument},
		{s.ID, SessionStarting, CodeInvalidArgument},
		{s.ID, "", CodeInvalidArgument},
		{"ses_nope", SessionEnded, CodeNotFound},
	} {
		if _, err := endSession(db, tc.id, tc.state, nil, ""); CodeOf(err) != tc.want {
			t.Errorf("EndSession(%s, %q) = %v, want %s", tc.id, tc.state, err, tc.want)
		}
	}
}

// Ending a session revokes only its own session token: an external session
// that names the client token must not take it down.
func TestEndSessionRevokesOnlyItsOwnToken(t *testing.T) {
	db := openTestDB(t, Options{})
	type setup struct {
		name       string
		token      TokenSpec // SessionID "self" is replaced by the session's id
		wantRevoke bool
	}
	for _, tc := range []setup{
		{"own session token", TokenSpec{Kind: KindSession, SessionID: "self"}, true},
		{"another session's token", TokenSpec{Kind: KindSession, SessionID: "ses_other"}, false},
		{"client token", TokenSpec{Kind: KindClient}, false},
		{"operator token", TokenSpec{Kind: KindOperator}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := NewID("ses")
			if tc.token.SessionID == "self" {
				tc.token.SessionID = id
			}
			var tok Token
			mustUpdate(t, db, func(tx *Tx) error {
				var err error
				if tok, _, err = tx.CreateToken(tc.token); err != nil {
					return err
				}
				_, err = tx.CreateSession(SessionSpec{ID: id, Kind: SessionExternal, TokenKeyID: tok.KeyID})
				return err
			})
			for _, state := range []SessionState{SessionLost, SessionEnded} { // the second is a no-op
				if _, err := endSession(db, id, state, nil, "gone"); err != nil {
					t.Fatal(err)
				}
			}
			mustView(t, db, func(tx *Tx) error {
				tk, _, err := tx.Token(tok.KeyID)
				if err != nil {
					return err
				}
				if revoked := tk.RevokedAt != nil; revoked != tc.wantRevoke {
					t.Errorf("token revoked = %v, want %v", revoked, tc.wantRevoke)
				}
				return nil
			})
		})
	}
}

// Whatever ended a session, ended or lost, it refuses everything that
// needs it live, and stays readable.
func TestEndedSessionRefusals(t *testing.T) {
	for _, state := range []SessionState{SessionEnded, SessionLost} {
		t.Run(string(state), func(t *testing.T) {
			db := openTestDB(t, Options{})
			s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
			_, q, err := addReport(db, s.ID, ReportQuestion, "which branch?", "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := endSession(db, s.ID, state, nil, "stopped"); err != nil {
				t.Fatal(err)
			}
			refusals := []struct {
				name string
				do   func(tx *Tx) error
			}{
				{"ready", func(tx *Tx) error { _, _, err := tx.AddReport(s.ID, ReportReady, "", ""); return err }},
				{"heartbeat", func(tx *Tx) error { _, _, err := tx.AddReport(s.ID, ReportHeartbeat, "still here", ""); return err }},
				{"question", func(tx *Tx) error { _, _, err := tx.AddReport(s.ID, ReportQuestion, "again?", ""); return err }},
				{"escalate", func(tx *Tx) error { _, _, err := tx.AddReport(s.ID, ReportEscalate, "help", ""); return err }},
				{"mark running", func(tx *Tx) error { _, err := tx.MarkSessionRunning(s.ID, 7, 0); return err }},
				{"answer its question", func(tx *Tx) error { _, err := tx.AnswerQuestion(q.ID, "main", "gui"); return err }},
			}
			for _, r := range refusals {
				if err := db.Update(context.Background(), r.do); CodeOf(err) != CodeInvalidState {
					t.Errorf("%s on a %s session: %v, want invalid_state", r.name, state, err)
				}
			}
			// Its open question left the attention list with it; the record
			// stays, unanswered.
			if ids := openQuestionIDs(t, db); len(ids) != 0 {
				t.Errorf("OpenQuestions after end = %v", ids)
			}
			mustView(t, db, func(tx *Tx) error {
				got, err := tx.Question(q.ID)
				if err != nil || got.Answered() || got.Text != "which branch?" {
					t.Errorf("question after end = %+v, %v", got, err)
				}
				rs, err := tx.Reports(s.ID, 0)
				if err != nil || len(rs) != 1 {
					t.Errorf("Reports after end = %+v, %v", rs, err)
				}
				if got := getSessionTx(t, tx, s.ID); got.State != state || got.LastReport == nil || got.LastReport.Kind != ReportQuestion {
					t.Errorf("session after refusals %+v", got)
				}
				return nil
			})
			// The timeline goes on past the end: the exit event, a lease
			// expiring later.
			mustUpdate(t, db, func(tx *Tx) error {
				_, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceExit})
				return err
			})
		})
	}
}

func getSessionTx(t *testing.T, tx *Tx, id string) Session {
	t.Helper()
	s, err := tx.Session(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSessionsFilter(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var r1, r2 Repository
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		if r1, _, err = tx.RegisterRepository("", "/src/one"); err != nil {
			return err
		}
		r2, _, err = tx.RegisterRepository("", "/src/two")
		return err
	})
	// Twelve sessions, oldest first; the plan says how each one ends up.
	type plan struct {
		repo  string
		kind  SessionKind
		state SessionState
	}
	plans := []plan{
		{r1.ID, SessionSupervised, SessionEnded},
		{r1.ID, SessionSupervised, SessionRunning},
		{r2.ID, SessionSupervised, SessionStarting},
		{"", SessionExternal, SessionRunning},
		{r2.ID, SessionSupervised, SessionLost},
		{r1.ID, SessionSupervised, SessionStarting},
		{r2.ID, SessionExternal, SessionEnded},
		{r1.ID, SessionSupervised, SessionRunning},
		{"", SessionExternal, SessionLost},
		{r2.ID, SessionSupervised, SessionRunning},
		{r1.ID, SessionSupervised, SessionEnded},
		{r2.ID, SessionSupervised, SessionStarting},
	}
	ids := make([]string, len(plans))
	for i, p := range plans {
		clock.Add(time.Second)
		ids[i] = createSession(t, db, SessionSpec{Kind: p.kind, RepositoryID: p.repo}).ID
	}
	// Change states in an order unlike creation order, so no index can lean
	// on it.
	for i := len(plans) - 1; i >= 0; i-- {
		p := plans[i]
		mustUpdate(t, db, func(tx *Tx) error {
			var err error
			switch p.state {
			case SessionRunning:
				_, err = tx.MarkSessionRunning(ids[i], 100+i, 0)
			case SessionEnded, SessionLost:
				_, err = tx.EndSession(ids[i], p.state, nil, "")
			}
			return err
		})
	}
	// want returns the ids of the plans that match, newest first.
	want := func(state SessionState, repo string, limit int) []string {
		var out []string
		for i := len(plans) - 1; i >= 0 && len(out) < limit; i-- {
			if (state == "" || plans[i].state == state) && (repo == "" || plans[i].repo == repo) {
				out = append(out, ids[i])
			}
		}
		return out
	}
	for _, f := range []SessionFilter{
		{}, {Limit: 1}, {Limit: 5}, {Limit: 1000},
		{State: SessionRunning}, {State: SessionStarting}, {State: SessionEnded}, {State: SessionLost},
		{RepositoryID: r1.ID}, {RepositoryID: r2.ID}, {RepositoryID: "repo_none"},
		{State: SessionRunning, RepositoryID: r1.ID}, {State: SessionStarting, RepositoryID: r2.ID, Limit: 1},
		{State: SessionEnded, RepositoryID: r2.ID}, {State: SessionRunning, Limit: 2},
	} {
		var got []string
		mustView(t, db, func(tx *Tx) error {
			ss, err := tx.Sessions(f)
			if err != nil {
				return err
			}
			if ss == nil {
				t.Errorf("Sessions(%+v) = nil, want an empty list", f)
			}
			for _, s := range ss {
				got = append(got, s.ID)
			}
			return nil
		})
		if w := want(f.State, f.RepositoryID, sessionListLimit(f.Limit)); !slices.Equal(got, w) {
			t.Errorf("Sessions(%+v) = %v, want %v", f, got, w)
		}
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Sessions(SessionFilter{State: "paused"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("Sessions(unknown state) = %v", err)
		}
		// RunningSessions: every live one, starting included, oldest first.
		live, err := tx.RunningSessions()
		if err != nil {
			return err
		}
		var got, wantLive []string
		for _, s := range live {
			got = append(got, s.ID)
		}
		for i, p := range plans {
			if p.state.Live() {
				wantLive = append(wantLive, ids[i])
			}
		}
		if !slices.Equal(got, wantLive) {
			t.Errorf("RunningSessions = %v, want %v", got, wantLive)
		}
		return nil
	})
}

// The crash sweep: everything left live by the last run ends as lost, in
// one transaction, and the next sweep finds nothing.
func TestCrashSweep(t *testing.T) {
	path := t.TempDir() + "/state.db"
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for i := range 5 {
		s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
		if i%2 == 0 {
			mustUpdate(t, db, func(tx *Tx) error { _, err := tx.MarkSessionRunning(s.ID, 10+i, 0); return err })
		}
		live = append(live, s.ID)
	}
	done := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	if _, err := endSession(db, done.ID, SessionEnded, exitCodeOf(0), "exited"); err != nil {
		t.Fatal(err)
	}
	db.Close() // the "crash"

	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sweep := func() []string {
		var swept []string
		mustUpdate(t, db, func(tx *Tx) error {
			ss, err := tx.RunningSessions()
			if err != nil {
				return err
			}
			for _, s := range ss {
				if _, err := tx.EndSession(s.ID, SessionLost, nil, "app restarted"); err != nil {
					return err
				}
				swept = append(swept, s.ID)
			}
			return nil
		})
		return swept
	}
	if got := sweep(); !slices.Equal(got, live) {
		t.Errorf("sweep ended %v, want %v", got, live)
	}
	if got := sweep(); len(got) != 0 {
		t.Errorf("second sweep ended %v", got)
	}
	mustView(t, db, func(tx *Tx) error {
		for _, id := range live {
			if s := getSessionTx(t, tx, id); s.State != SessionLost || s.EndReason != "app restarted" {
				t.Errorf("swept session %+v", s)
			}
		}
		if s := getSessionTx(t, tx, done.ID); s.State != SessionEnded {
			t.Errorf("ended session touched by the sweep: %+v", s)
		}
		return nil
	})
}

// What a rolled-back Update did to sessions, reports and questions leaves
// no trace: no record, no index entry, no used sequence number.
func TestSessionWritesRollBack(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	if _, _, err := addReport(db, s.ID, ReportHeartbeat, "one", ""); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var ghost Session
	var ghostQ *Question
	err := db.Update(context.Background(), func(tx *Tx) error {
		var err error
		if ghost, err = tx.CreateSession(SessionSpec{Kind: SessionExternal}); err != nil {
			return err
		}
		if _, ghostQ, err = tx.AddReport(s.ID, ReportQuestion, "lost?", ""); err != nil {
			return err
		}
		if _, err := tx.EndSession(s.ID, SessionEnded, nil, ""); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Session(ghost.ID); CodeOf(err) != CodeNotFound {
			t.Errorf("rolled-back session exists: %v", err)
		}
		if _, err := tx.Question(ghostQ.ID); CodeOf(err) != CodeNotFound {
			t.Errorf("rolled-back question exists: %v", err)
		}
		if got := getSessionTx(t, tx, s.ID); got.State != SessionRunning || got.LastReport.Text != "one" {
			t.Errorf("session after rollback: %+v", got)
		}
		ss, err := tx.Sessions(SessionFilter{})
		if err != nil || len(ss) != 1 {
			t.Errorf("Sessions after rollback = %d, %v", len(ss), err)
		}
		return nil
	})
	if ids := openQuestionIDs(t, db); len(ids) != 0 {
		t.Errorf("OpenQuestions after rollback = %v", ids)
	}
	r, _, err := addReport(db, s.ID, ReportHeartbeat, "two", "")
	if err != nil || r.Seq != 2 {
		t.Errorf("report after rollback: seq %d, %v; want 2", r.Seq, err)
	}
}

func TestCutSessionText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 4, ""},
		{"abc", 4, "abc"},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd"},
		{"abcé", 4, "abc"},        // é is 2 bytes: cut before it
		{"ab€", 4, "ab"},          // € is 3 bytes
		{"ab€", 5, "ab€"},         // exactly fits
		{"a\xffb", 4, "a\uFFFDb"}, // invalid bytes replaced
		{"日本語", 0, ""},
	} {
		if got := cutSessionText(tc.in, tc.n); got != tc.want {
			t.Errorf("cutSessionText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestSetSessionWorkspace(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	good := Workspace{Path: "/data/worktrees/repo_1/" + s.ID, Branch: "switchboard/1a2b3c4d-fix", BaseBranch: "main", BaseCommit: strings.Repeat("0f", 20)}
	set := func(id string, w Workspace) error {
		return db.Update(context.Background(), func(tx *Tx) error { _, err := tx.SetSessionWorkspace(id, w); return err })
	}
	for _, tc := range []struct {
		name string
		edit func(w *Workspace)
	}{
		{"relative path", func(w *Workspace) { w.Path = "worktrees/x" }},
		{"unclean path", func(w *Workspace) { w.Path = "/data/../etc" }},
		{"no branch", func(w *Workspace) { w.Branch = "" }},
		{"no base branch", func(w *Workspace) { w.BaseBranch = "" }},
		{"short commit", func(w *Workspace) { w.BaseCommit = "0f0f0f0" }},
		{"commit not hex", func(w *Workspace) { w.BaseCommit = strings.Repeat("zz", 20) }},
	} {
		w := good
		tc.edit(&w)
		if err := set(s.ID, w); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", tc.name, err)
		}
	}
	if err := set(s.ID, good); err != nil {
		t.Fatalf("set: %v", err)
	}
	if got := getSession(t, db, s.ID); got.Workspace == nil || *got.Workspace != good {
		t.Errorf("workspace %+v, want %+v", got.Workspace, good)
	}
	if err := set(s.ID, good); err != nil {
		t.Errorf("setting the same workspace again: %v", err)
	}
	other := good
	other.Branch = "switchboard/other"
	if err := set(s.ID, other); CodeOf(err) != CodeInvalidState {
		t.Errorf("moving a session to another workspace: %v, want invalid_state", err)
	}
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.EndSession(s.ID, SessionEnded, nil, "done"); return err })
	if got := getSession(t, db, s.ID); got.Workspace == nil || *got.Workspace != good {
		t.Errorf("an ended session's workspace: %+v", got.Workspace)
	}
	if err := set(createSession(t, db, SessionSpec{Kind: SessionSupervised}).ID, good); err != nil {
		t.Errorf("another session: %v", err)
	}
	if err := set(s.ID, good); CodeOf(err) != CodeInvalidState {
		t.Errorf("an ended session: %v, want invalid_state", err)
	}
}
