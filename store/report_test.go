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

// report adds a report in its own Update and returns its outcome.
func addReport(db *DB, sessionID string, kind ReportKind, text, packetID string) (Report, *Question, error) {
	var r Report
	var q *Question
	err := db.Update(context.Background(), func(tx *Tx) error {
		var err error
		r, q, err = tx.AddReport(sessionID, kind, text, packetID)
		return err
	})
	return r, q, err
}

func equalReport(a, b Report) bool {
	ta, tb := a.At, b.At
	a.At, b.At = time.Time{}, time.Time{}
	return a == b && ta.Equal(tb)
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
			db.View(context.Background(), func(tx *Tx) error { before, _ = tx.Session(tc.session); return nil })
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

// The registry writes a change and its trace event in one Update: both
// commit or neither does.
func TestReportAndTraceCommitTogether(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	for _, fail := range []bool{true, false} {
		err := db.Update(context.Background(), func(tx *Tx) error {
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
