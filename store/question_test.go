package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func answerQuestion(db *DB, qID, text, by string) (Question, error) {
	var q Question
	err := db.Update(context.Background(), func(tx *Tx) error {
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

func equalQuestion(a, b Question) bool {
	ta, tb := a.AskedAt, b.AskedAt
	aa, ab := a.AnsweredAt, b.AnsweredAt
	a.AskedAt, b.AskedAt, a.AnsweredAt, b.AnsweredAt = time.Time{}, time.Time{}, nil, nil
	return a == b && ta.Equal(tb) && (aa == nil && ab == nil || aa != nil && ab != nil && aa.Equal(*ab))
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
