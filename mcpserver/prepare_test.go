package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Method.Prepare runs before the call's write transaction and outside it,
// under a bounded context; what it returns reaches the handler; it reads
// through prepareView only once the call is authorized; and its error
// reaches the caller in place of the handler's answer, after authorization.
func TestPrepareHook(t *testing.T) {
	f := newFixture(t)
	mine := f.registerRepo(t, "/src/mine")
	theirs := f.registerRepo(t, "/src/theirs")
	pkt := f.createPacket(t, theirs.ID, nil)
	tok, _ := f.createToken(t, store.TokenSpec{Label: "mine", Grants: []store.Grant{{Capability: store.CapWorkRead, Repositories: []string{mine.ID}}}})
	stranger := TokenPrincipal(tok)

	var viewed int   // prepareView's fn runs
	var fail string  // what Prepare does: "", "deny" or "panic"
	var outside bool // Prepare saw another writer get through
	m := Method{Name: "test.prepare", Access: On(Packet, store.CapWorkRead), Handler: func(c *Call) (any, error) {
		return c.Prepared, nil
	}}
	m.Prepare = func(c *Call) (any, error) {
		if _, ok := c.Ctx.Deadline(); !ok {
			return nil, errors.New("Prepare runs without a deadline")
		}
		// Were the call's write transaction open, this would wait for it.
		done := make(chan error, 1)
		go func() { done <- f.db.Update(c.Ctx, func(*store.Tx) error { return nil }) }()
		select {
		case err := <-done:
			outside = err == nil
		case <-time.After(10 * time.Second):
			return nil, errors.New("Prepare runs inside a write transaction")
		}
		if fail == "deny" {
			// Refused before anything authorized the call: only the
			// handler may hand this back.
			return nil, store.Deny(store.CodeInvalidState, "prepared and refused")
		}
		var title string
		err := f.reg.prepareView(c, func(tx *store.Tx) error {
			viewed++
			p, err := tx.Packet(c.objects.PacketID)
			title = p.Title
			return err
		})
		if err != nil {
			return nil, err
		}
		if fail == "panic" {
			panic("prepare broke")
		}
		return title, nil
	}
	f.reg.Register(m)
	args := fmt.Sprintf(`{"packet_id":%q}`, pkt)

	res := f.invoke(OperatorPrincipal(), TransportRPC, "test.prepare", args)
	wantCode(t, res, "ok")
	if res.Value != "fix it" || viewed != 1 || !outside {
		t.Fatalf("operator: value %v, viewed %d, outside %v", res.Value, viewed, outside)
	}

	// Out of scope: prepareView reads nothing, the call is refused as the
	// registry refuses it.
	wantCode(t, f.invoke(stranger, TransportMCP, "test.prepare", args), store.CodeCapabilityScopeMismatch)
	if viewed != 1 {
		t.Errorf("prepareView ran its function for a caller out of scope")
	}

	// Prepare's denial is the answer in place of the handler's: the operator gets it,
	// the caller out of scope still gets only the scope denial.
	fail = "deny"
	if res := f.invoke(OperatorPrincipal(), TransportRPC, "test.prepare", args); res.Code() != store.CodeInvalidState || f.auditRecord(t, res.AuditID).Outcome != string(store.CodeInvalidState) {
		t.Errorf("operator with a failing Prepare: %v", res.Err)
	}
	res = f.invoke(stranger, TransportMCP, "test.prepare", args)
	wantCode(t, res, store.CodeCapabilityScopeMismatch)
	if strings.Contains(res.Err.Error(), "prepared") {
		t.Errorf("the caller out of scope got Prepare's denial: %v", res.Err)
	}

	// A panic in Prepare is an internal error, not a crash.
	fail = "panic"
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "test.prepare", args), store.CodeInternal)
}

// countedArgs counts how often arguments are decoded.
type countedArgs struct {
	PacketID string `json:"packet_id"`
	decodes  *int
}

func (a *countedArgs) UnmarshalJSON(b []byte) error {
	if a.decodes == nil {
		return errors.New("decoded a second time, by the handler")
	}
	*a.decodes++
	var v struct {
		PacketID string `json:"packet_id"`
	}
	err := json.Unmarshal(b, &v)
	a.PacketID = v.PacketID
	return err
}

// A handler defined with Define starts from the arguments its Prepare
// decoded, of the same type: they are decoded once per call.
func TestPrepareDecodesOnce(t *testing.T) {
	f := newFixture(t)
	repo := f.registerRepo(t, "/src/mine")
	pkt := f.createPacket(t, repo.ID, nil)
	decodes := 0
	name := Name[countedArgs, string]("test.decode_once")
	m := Define(name, On(Packet, store.CapWorkRead), 0, "test", func(c *Call, in countedArgs) (string, error) {
		return in.PacketID, nil
	})
	m.Prepare = func(c *Call) (any, error) {
		in := countedArgs{decodes: &decodes}
		return nil, c.Decode(&in)
	}
	f.reg.Register(m)
	res := f.invoke(OperatorPrincipal(), TransportRPC, string(name), fmt.Sprintf(`{"packet_id":%q}`, pkt))
	wantCode(t, res, "ok")
	if res.Value != pkt || decodes != 1 {
		t.Errorf("value %v, arguments decoded %d times; want %s, once", res.Value, decodes, pkt)
	}
}
