package store

import (
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

// report adds a report in its own Update and returns its outcome.
func addReport(db *DB, sessionID string, kind ReportKind, text, packetID string) (Report, *Question, error) {
	var r Report
	var q *Question
	err := db.Update(func(tx *Tx) error {
		var err error
		r, q, err = tx.AddReport(sessionID, kind, text, packetID)
		return err
	})
	return r, q, err
}

func endSession(db *DB, id string, state SessionState, code *int, reason string) (Session, error) {
	var s Session
	err := db.Update(func(tx *Tx) error {
		var err error
		s, err = tx.EndSession(id, state, code, reason)
		return err
	})
	return s, err
}

func answerQuestion(db *DB, qID, text, by string) (Question, error) {
	var q Question
	err := db.Update(func(tx *Tx) error {
		var err error
		q, err = tx.AnswerQuestion(qID, text, by)
		return err
	})
	return q, err
}

func openQuestionIDs(t *testing.T, db *DB) []string {
	t.Helper()
	var ids []string
	mustView(t, db, func(tx *Tx) error {
		qs, err := tx.OpenQuestions()
		for _, q := range qs {
			ids = append(ids, q.ID)
		}
		return err
	})
	return ids
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
			err := db.Update(func(tx *Tx) error {
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

func equalReport(a, b Report) bool {
	ta, tb := a.At, b.At
	a.At, b.At = time.Time{}, time.Time{}
	return a == b && ta.Equal(tb)
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
				if err := db.Update(r.do); CodeOf(err) != CodeInvalidState {
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

// repoWithPacket registers a repository at path with one packet in it.
func repoWithPacket(t testing.TB, db *DB, path string) (Repository, Packet) {
	t.Helper()
	var repo Repository
	var p Packet
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		if repo, _, err = tx.RegisterRepository("", path); err != nil {
			return err
		}
		p, err = tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "t"})
		return err
	})
	return repo, p
}

func TestAddReport(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	repo, pkt := repoWithPacket(t, db, "/src/a")
	_, other := repoWithPacket(t, db, "/src/b")
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised, RepositoryID: repo.ID})
	max := strings.Repeat("a", MaxReportText)
	var wantSeq uint64
	for _, tc := range []struct {
		name         string
		session      string
		kind         ReportKind
		text, packet string
		want         Code
		wantQuestion bool
	}{
		{"ready, no text", s.ID, ReportReady, "", "", "", false},
		{"heartbeat", s.ID, ReportHeartbeat, "50% done", pkt.ID, "", false},
		{"heartbeat, empty", s.ID, ReportHeartbeat, "", "", "", false},
		{"question", s.ID, ReportQuestion, "Which branch?", pkt.ID, "", true},
		{"packet of another repository", s.ID, ReportHeartbeat, "x", other.ID, CodeCapabilityScopeMismatch, false},
		{"question on another repository's packet", s.ID, ReportQuestion, "x?", other.ID, CodeCapabilityScopeMismatch, false},
		{"packet that does not exist", s.ID, ReportHeartbeat, "x", "pkt_nope", CodeCapabilityScopeMismatch, false},
		{"escalate", s.ID, ReportEscalate, "tests need a database I cannot reach", "", "", false},
		{"text at the bound", s.ID, ReportHeartbeat, max, "", "", false},
		{"text over the bound", s.ID, ReportHeartbeat, max + "a", "", CodeInvalidArgument, false},
		{"question over the bound", s.ID, ReportQuestion, max + "?", "", CodeInvalidArgument, false},
		{"text not UTF-8", s.ID, ReportHeartbeat, "bad \xff byte", "", CodeInvalidArgument, false},
		{"question without text", s.ID, ReportQuestion, "", "", CodeInvalidArgument, false},
		{"question of spaces", s.ID, ReportQuestion, " \n\t", "", CodeInvalidArgument, false},
		{"escalate without text", s.ID, ReportEscalate, "", "", CodeInvalidArgument, false},
		{"unknown kind", s.ID, "done", "x", "", CodeInvalidArgument, false},
		{"empty kind", s.ID, "", "x", "", CodeInvalidArgument, false},
		{"packet id too long", s.ID, ReportHeartbeat, "x", "pkt_" + strings.Repeat("0", 300), CodeInvalidArgument, false},
		{"unknown session", "ses_nope", ReportReady, "", "", CodeNotFound, false},
		{"no session", "", ReportReady, "", "", CodeNotFound, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.Add(time.Second)
			var before Session // stays zero for an unknown session
			db.View(func(tx *Tx) error { before, _ = tx.Session(tc.session); return nil })
			r, q, err := addReport(db, tc.session, tc.kind, tc.text, tc.packet)
			if CodeOf(err) != tc.want {
				t.Fatalf("AddReport code %q (%v), want %q", CodeOf(err), err, tc.want)
			}
			if err != nil {
				if tc.session == s.ID {
					if after := getSession(t, db, s.ID); !equalSession(after, before) {
						t.Errorf("refused report changed the session: %+v", after)
					}
				}
				return
			}
			wantSeq++
			want := Report{ID: r.ID, Seq: wantSeq, SessionID: s.ID, Kind: tc.kind, Text: tc.text, PacketID: tc.packet, At: clock.Now()}
			if tc.wantQuestion {
				if q == nil {
					t.Fatal("no question")
				}
				want.QuestionID = q.ID
				wantQ := Question{ID: q.ID, SessionID: s.ID, PacketID: tc.packet, Text: tc.text, AskedAt: clock.Now()}
				if !equalQuestion(*q, wantQ) || !regexp.MustCompile(`^q_[0-9a-f]{20}$`).MatchString(q.ID) {
					t.Errorf("question %+v, want %+v", *q, wantQ)
				}
			} else if q != nil {
				t.Errorf("a %s report made question %+v", tc.kind, q)
			}
			if !equalReport(r, want) || !regexp.MustCompile(`^rep_[0-9a-f]{20}$`).MatchString(r.ID) {
				t.Errorf("report %+v, want %+v", r, want)
			}
			got := getSession(t, db, s.ID)
			if got.LastReport == nil || !equalReport(*got.LastReport, want) || got.LastReportAt == nil || !got.LastReportAt.Equal(clock.Now()) {
				t.Errorf("session's last report %+v at %v, want %+v", got.LastReport, got.LastReportAt, want)
			}
			// The first report is proof of life.
			if got.State != SessionRunning {
				t.Errorf("state after a report: %s", got.State)
			}
		})
	}
	// Reports lists exactly the accepted ones, in order, each the event
	// at its seq on the timeline.
	mustView(t, db, func(tx *Tx) error {
		rs, err := tx.Reports(s.ID, 1000)
		if err != nil {
			return err
		}
		if uint64(len(rs)) != wantSeq {
			t.Fatalf("%d reports stored, want %d", len(rs), wantSeq)
		}
		evs, err := tx.TraceEvents(s.ID, 0, 1000)
		if err != nil {
			return err
		}
		if len(evs) != len(rs) {
			t.Fatalf("%d trace events for %d reports", len(evs), len(rs))
		}
		for i, r := range rs {
			ev := evs[i]
			wantType := TraceReport
			if r.Kind == ReportQuestion {
				wantType = TraceQuestion
			}
			if r.Seq != uint64(i+1) || ev.Seq != r.Seq || ev.Type != wantType || ev.Method != "session.report" || ev.Report == nil || !equalReport(*ev.Report, r) {
				t.Errorf("report %d: %+v, its event %+v", i, r, ev)
			}
		}
		if _, err := tx.Reports("ses_nope", 0); CodeOf(err) != CodeNotFound {
			t.Errorf("Reports(unknown) = %v, want not_found", err)
		}
		return nil
	})
}

func equalQuestion(a, b Question) bool {
	ta, tb := a.AskedAt, b.AskedAt
	aa, ab := a.AnsweredAt, b.AnsweredAt
	a.AskedAt, b.AskedAt, a.AnsweredAt, b.AnsweredAt = time.Time{}, time.Time{}, nil, nil
	return a == b && ta.Equal(tb) && (aa == nil && ab == nil || aa != nil && ab != nil && aa.Equal(*ab))
}

// Reports returns the newest reports, oldest first, however many other
// events (and other sessions' reports) came between them.
func TestReportsNewest(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	other := createSession(t, db, SessionSpec{Kind: SessionExternal})
	const n = 37
	var seqs []uint64
	for i := range n {
		r, _, err := addReport(db, s.ID, ReportHeartbeat, strings.Repeat("x", i), "")
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, r.Seq)
		for range i % 3 {
			if _, err := appendTrace(db, s.ID, TraceEvent{Type: TraceToolCall}); err != nil {
				t.Fatal(err)
			}
		}
		if i%5 == 0 {
			if _, _, err := addReport(db, other.ID, ReportHeartbeat, "other", ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, limit := range []int{1, 3, 10, n, 1000} {
		var rs []Report
		mustView(t, db, func(tx *Tx) error {
			var err error
			rs, err = tx.Reports(s.ID, limit)
			return err
		})
		first := max(0, n-limit)
		var got []uint64
		for i, r := range rs {
			if r.SessionID != s.ID || len(r.Text) != first+i {
				t.Fatalf("limit %d: report %d is %+v", limit, i, r)
			}
			got = append(got, r.Seq)
		}
		if want := seqs[first:]; !slices.Equal(got, want) {
			t.Errorf("limit %d: seqs %v, want %v", limit, got, want)
		}
	}
	quiet := createSession(t, db, SessionSpec{Kind: SessionExternal})
	mustView(t, db, func(tx *Tx) error {
		fresh, err := tx.Reports(other.ID, 0)
		if err != nil || len(fresh) != 8 {
			t.Errorf("other session's reports: %d, %v", len(fresh), err)
		}
		if rs, err := tx.Reports(quiet.ID, 10); err != nil || rs == nil || len(rs) != 0 {
			t.Errorf("Reports of a session without any = %v, %v; want an empty list", rs, err)
		}
		return nil
	})
}

func TestQuestionFlow(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	repo, pkt := repoWithPacket(t, db, "/src/a")
	s := createSession(t, db, SessionSpec{Kind: SessionExternal, RepositoryID: repo.ID})
	clock.Add(time.Second)
	asked := clock.Now()
	r, q, err := addReport(db, s.ID, ReportQuestion, "May I delete vendor/?", pkt.ID)
	if err != nil || q == nil || r.QuestionID != q.ID {
		t.Fatalf("AddReport(question) = %+v, %+v, %v", r, q, err)
	}
	if ids := openQuestionIDs(t, db); !slices.Equal(ids, []string{q.ID}) {
		t.Errorf("OpenQuestions = %v, want [%s]", ids, q.ID)
	}

	clock.Add(time.Minute)
	var answered time.Time // when the accepted answer was given
	steps := []struct {
		name, qID, answer, by string
		want                  Code
	}{
		{"empty answer", q.ID, "", "gui", CodeInvalidArgument},
		{"blank answer", q.ID, "  \n", "gui", CodeInvalidArgument},
		{"answer too long", q.ID, strings.Repeat("n", MaxAnswerText+1), "gui", CodeInvalidArgument},
		{"answer not UTF-8", q.ID, "\xc3", "gui", CodeInvalidArgument},
		{"answerer too long", q.ID, "no", strings.Repeat("g", 257), CodeInvalidArgument},
		{"unknown question", "q_nope", "no", "gui", CodeNotFound},
		{"answer", q.ID, "No, keep it.", "gui", ""},
		{"answer twice", q.ID, "Yes after all.", "rpc", CodeInvalidState},
		{"answer twice, same text", q.ID, "No, keep it.", "gui", CodeInvalidState},
	}
	for _, st := range steps {
		clock.Add(time.Second)
		now := clock.Now()
		got, err := answerQuestion(db, st.qID, st.answer, st.by)
		if CodeOf(err) != st.want {
			t.Errorf("%s: code %q (%v), want %q", st.name, CodeOf(err), err, st.want)
			continue
		}
		if err == nil {
			answered = now
			want := Question{ID: q.ID, SessionID: s.ID, PacketID: pkt.ID, Text: "May I delete vendor/?", AskedAt: asked,
				Answer: "No, keep it.", AnsweredAt: &now, AnsweredBy: "gui"}
			if !equalQuestion(got, want) || !got.Answered() {
				t.Errorf("%s: %+v, want %+v", st.name, got, want)
			}
		}
	}
	// The first answer stands.
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Question(q.ID)
		if err != nil || got.Answer != "No, keep it." || got.AnsweredBy != "gui" || !got.AnsweredAt.Equal(answered) {
			t.Errorf("stored question %+v, %v", got, err)
		}
		if _, err := tx.Question("q_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Question(unknown) = %v", err)
		}
		return nil
	})
	if ids := openQuestionIDs(t, db); len(ids) != 0 {
		t.Errorf("OpenQuestions after the answer = %v", ids)
	}
}

// OpenQuestions lists what waits for a person in asking order, whatever
// the ids, the sessions or the clock say, and forgets what was answered or
// whose session ended.
func TestOpenQuestionsOrder(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	a := createSession(t, db, SessionSpec{Kind: SessionExternal})
	b := createSession(t, db, SessionSpec{Kind: SessionExternal})
	c := createSession(t, db, SessionSpec{Kind: SessionExternal})
	if ids := openQuestionIDs(t, db); ids != nil {
		t.Fatalf("OpenQuestions on a fresh db = %v", ids)
	}
	ask := func(s Session, text string) string {
		t.Helper()
		clock.Add(time.Second)
		_, q, err := addReport(db, s.ID, ReportQuestion, text, "")
		if err != nil {
			t.Fatal(err)
		}
		return q.ID
	}
	var order []string
	for i, s := range []Session{b, a, c, a, b, c, c, a} {
		order = append(order, ask(s, string(rune('A'+i))))
	}
	// Several in one transaction keep their order too, although they share
	// a time.
	mustUpdate(t, db, func(tx *Tx) error {
		for _, s := range []Session{c, a, b} {
			_, q, err := tx.AddReport(s.ID, ReportQuestion, "same instant", "")
			if err != nil {
				return err
			}
			order = append(order, q.ID)
		}
		return nil
	})
	// A clock that steps back does not reorder them.
	clock.Add(-time.Hour)
	order = append(order, ask(b, "from the past"))
	if got := openQuestionIDs(t, db); !slices.Equal(got, order) {
		t.Fatalf("OpenQuestions = %v, want %v", got, order)
	}

	// Answer the oldest, one in the middle, and the newest.
	answered := []string{order[0], order[5], order[len(order)-1]}
	for _, id := range answered {
		if _, err := answerQuestion(db, id, "ok", "gui"); err != nil {
			t.Fatal(err)
		}
	}
	wantAfterAnswers := slices.DeleteFunc(slices.Clone(order), func(id string) bool { return slices.Contains(answered, id) })
	if got := openQuestionIDs(t, db); !slices.Equal(got, wantAfterAnswers) {
		t.Fatalf("after answers: %v, want %v", got, wantAfterAnswers)
	}

	// Ending c drops its questions; a's and b's keep their order.
	var cQuestions []string
	mustView(t, db, func(tx *Tx) error {
		for _, id := range wantAfterAnswers {
			q, err := tx.Question(id)
			if err != nil {
				return err
			}
			if q.SessionID == c.ID {
				cQuestions = append(cQuestions, id)
			}
		}
		return nil
	})
	if len(cQuestions) == 0 {
		t.Fatal("setup: no open question of c")
	}
	if _, err := endSession(db, c.ID, SessionLost, nil, "app restarted"); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(wantAfterAnswers), func(id string) bool { return slices.Contains(cQuestions, id) })
	if got := openQuestionIDs(t, db); !slices.Equal(got, want) {
		t.Errorf("after ending c: %v, want %v", got, want)
	}
	// New questions go to the end.
	want = append(want, ask(a, "last"))
	if got := openQuestionIDs(t, db); !slices.Equal(got, want) {
		t.Errorf("after a new question: %v, want %v", got, want)
	}
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
	err := db.Update(func(tx *Tx) error {
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

// The registry writes a change and its trace event in one Update: both
// commit or neither does.
func TestReportAndTraceCommitTogether(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	for _, fail := range []bool{true, false} {
		err := db.Update(func(tx *Tx) error {
			if _, _, err := tx.AddReport(s.ID, ReportHeartbeat, "tick", ""); err != nil {
				return err
			}
			if _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceToolCall, Method: "session.report"}); err != nil {
				return err
			}
			if fail {
				return errors.New("boom")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Fatal(err)
		}
	}
	mustView(t, db, func(tx *Tx) error {
		rs, err := tx.Reports(s.ID, 0)
		if err != nil {
			return err
		}
		evs, err := tx.TraceEvents(s.ID, 0, 0)
		if err != nil {
			return err
		}
		if len(rs) != 1 || len(evs) != 2 || rs[0].Seq != 1 || evs[0].Report == nil || evs[0].Report.ID != rs[0].ID || evs[1].Seq != 2 {
			t.Errorf("reports %+v, events %+v", rs, evs)
		}
		return nil
	})
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
