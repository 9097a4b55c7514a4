package standinmodel

import "sync"

// Gate pauses a policy mid-run: once the conversation's last step is a
// result of the tool it names, the model's next reply waits until the test
// opens the gate. A test kills the app while the agent waits there, with a
// packet half done, and opens the gate before it resumes the agent; the
// resumed conversation arrives whole and the policy carries on from it.
type Gate struct {
	after   string
	reached chan struct{}
	open    chan struct{}
	reach   sync.Once
	opened  sync.Once
}

// NewGate returns a closed gate that holds the reply after a result of the
// tool after (Switchboard's name, e.g. ToolAck).
func NewGate(after string) *Gate {
	return &Gate{after: after, reached: make(chan struct{}), open: make(chan struct{})}
}

// Policy wraps p with the gate.
func (g *Gate) Policy(p Policy) Policy {
	return func(prompt string, steps []Step) Reply {
		if n := len(steps); n > 0 && steps[n-1].Call.Tool == g.after && !steps[n-1].IsError {
			g.reach.Do(func() { close(g.reached) })
			<-g.open
		}
		return p(prompt, steps)
	}
}

// Reached is closed once a reply waits at the gate.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Open lets every reply through, now and from then on. A test opens the
// gate in its cleanup too, so no request is left waiting.
func (g *Gate) Open() { g.opened.Do(func() { close(g.open) }) }
