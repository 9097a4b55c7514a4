package app

// The main window's right column: the questions agents wait on, oldest
// first, with the answer box under the one being answered. Hidden while
// none waits; a new question takes the keyboard to the answer box.

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const (
	labelQuestions      = "Questions waiting"
	labelAnswerThis     = "Answer this one"
	labelShowAgent      = "Show agent"
	questionColMinWidth = 280
)

// questionColumn is the right column; on the Fyne goroutine only.
type questionColumn struct {
	w       *sessionsWindow
	content *fyne.Container // the column, hidden while none waits
	box     *fyne.Container // the questions
	answer  *widget.Entry
	send    *widget.Button
	note    *widget.Label // why an answer was not sent

	waiting []store.Question
	shown   string          // the ids shown, to lay out again only on a change
	seen    map[string]bool // every question id shown so far; nil before the first read
	target  string          // the question the answer box answers
}

func newQuestionColumn(w *sessionsWindow) *questionColumn {
	c := &questionColumn{w: w, box: container.NewVBox()}
	c.answer = widget.NewMultiLineEntry()
	c.answer.SetPlaceHolder("Your answer to the agent's question")
	c.answer.SetMinRowsVisible(3)
	c.answer.Wrapping = fyne.TextWrapWord
	c.send = widget.NewButtonWithIcon(labelAnswer, theme.MailSendIcon(), c.sendAnswer)
	c.send.Importance = widget.HighImportance
	c.note = widget.NewLabel("")
	c.note.Wrapping = fyne.TextWrapWord
	c.note.Importance = widget.DangerImportance
	c.note.Hide()
	head := widget.NewLabelWithStyle(labelQuestions, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.content = atLeast(fyne.NewSize(questionColMinWidth, 0), container.NewPadded(container.NewBorder(head, nil, nil, nil, container.NewVScroll(c.box))))
	c.content.Hide()
	return c
}

// show lists qs; a question not seen before takes the answer box and the
// keyboard, as the person is there to answer it.
func (c *questionColumn) show(qs []store.Question) {
	ids := make([]string, len(qs))
	arrived := ""
	for i, q := range qs {
		ids[i] = q.ID
		if c.seen != nil && !c.seen[q.ID] && arrived == "" {
			arrived = q.ID
		}
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	for _, id := range ids {
		c.seen[id] = true
	}
	c.waiting = qs
	if !slices.Contains(ids, c.target) {
		c.target = ""
		if len(ids) > 0 {
			c.target = ids[0]
		}
	}
	if arrived != "" {
		c.target = arrived
	}
	key := strings.Join(ids, ",") + "|" + c.target
	if key != c.shown {
		c.shown = key
		c.layout()
	}
	if arrived != "" {
		c.w.win.Canvas().Focus(c.answer)
	}
}

// layout builds the column again from c.waiting.
func (c *questionColumn) layout() {
	wasShown := c.content.Visible()
	if len(c.waiting) == 0 {
		c.content.Hide()
		c.answer.SetText("")
	} else {
		c.content.Show()
	}
	var objs []fyne.CanvasObject
	for _, q := range c.waiting {
		who := widget.NewLabelWithStyle(c.asker(q), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		who.Truncation = fyne.TextTruncateEllipsis
		text := widget.NewLabel(q.AskedAt.Local().Format("15:04") + "  " + q.Text)
		text.Wrapping = fyne.TextWrapWord
		sid := q.SessionID
		showAgent := widget.NewButton(labelShowAgent, func() { c.w.selectSession(sid) })
		objs = append(objs, who, text)
		if q.ID == c.target {
			objs = append(objs, c.answer, c.note, container.NewHBox(showAgent, layout.NewSpacer(), c.send))
		} else {
			qid := q.ID
			objs = append(objs, container.NewHBox(showAgent, layout.NewSpacer(), widget.NewButton(labelAnswerThis, func() {
				c.target = qid
				c.shown = ""
				c.show(c.waiting)
				c.w.win.Canvas().Focus(c.answer)
			})))
		}
		objs = append(objs, widget.NewSeparator())
	}
	c.box.Objects = objs
	c.box.Refresh()
	if wasShown != c.content.Visible() {
		// The column's border gives the centre the room back, or takes it.
		c.w.win.Content().Refresh()
	}
}

// asker names the agent that asked q, and its repository.
func (c *questionColumn) asker(q store.Question) string {
	for _, s := range c.w.sessions {
		if s.ID == q.SessionID {
			return c.w.title(s)
		}
	}
	return q.SessionID
}

func (c *questionColumn) sendAnswer() {
	text := strings.TrimSpace(c.answer.Text)
	if text == "" || c.target == "" {
		return
	}
	if _, err := invoke(c.w.g, mcpserver.MethodSessionAnswer, mcpserver.AnswerArgs{QuestionID: c.target, Answer: text}); err != nil {
		c.w.g.log.Error("sessions: answer", "err", err)
		c.note.SetText("The answer was not sent: " + err.Error())
		c.note.Show()
		return
	}
	c.note.Hide()
	c.answer.SetText("")
	c.w.reload()
}

// answerFor puts the answer box under the oldest question of session id,
// with the keyboard in it; nothing when it asks none.
func (c *questionColumn) answerFor(id string) {
	for _, q := range c.waiting {
		if q.SessionID == id {
			c.answerQuestion(q.ID)
			return
		}
	}
}

// answerQuestion puts the answer box under question id, with the keyboard
// in it; nothing when it no longer waits.
func (c *questionColumn) answerQuestion(id string) {
	if !slices.ContainsFunc(c.waiting, func(q store.Question) bool { return q.ID == id }) {
		return
	}
	if c.target != id {
		c.target = id
		c.shown = ""
		c.show(c.waiting)
	}
	c.w.win.Canvas().Focus(c.answer)
}

// showQuestion opens the main window on the agent that asked question
// questionID, with the answer box under that question and the keyboard in
// it: what a click on the question's notification does.
func (g *gui) showQuestion(sessionID, questionID string) {
	g.showSessions(sessionID)
	g.sessions.questions.answerQuestion(questionID)
}
