package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

type echoArgs struct {
	Word string `json:"word"`
}

type echoed struct {
	Word  string `json:"word"`
	Times int    `json:"times"`
}

// The typed helper returns the handler's value as it is, the call's own
// denial unwrapped, a value a Then hook replaced decoded through JSON, and
// every call it makes is audited.
func TestInvokeTyped(t *testing.T) {
	f := newFixture(t)
	reg := NewRegistry(f.db, Options{Log: f.log})
	const (
		echo     Name[echoArgs, echoed] = "test.echo"
		refuse   Name[echoArgs, echoed] = "test.refuse"
		replaced Name[echoArgs, echoed] = "test.replaced"
		garbled  Name[echoArgs, echoed] = "test.garbled"
		missing  Name[echoArgs, echoed] = "test.missing"
	)
	reg.Register(Define(echo, On(Global, store.CapStatusRead), 0, "echo",
		func(c *Call, in echoArgs) (echoed, error) { return echoed{Word: in.Word, Times: 2}, nil }))
	reg.Register(Define(refuse, On(Global, store.CapStatusRead), 0, "refuse",
		func(c *Call, in echoArgs) (echoed, error) {
			return echoed{Word: "leaked"}, store.Deny(store.CodeInvalidArgument, "no %s", in.Word)
		}))
	reg.Register(Define(replaced, On(Global, store.CapStatusRead), 0, "then replaces the result",
		func(c *Call, in echoArgs) (echoed, error) {
			c.Then(func(any) (any, error) { return map[string]any{"word": in.Word, "times": 3}, nil })
			return echoed{}, nil
		}))
	reg.Register(Define(garbled, On(Global, store.CapStatusRead), 0, "then replaces the result with another shape",
		func(c *Call, in echoArgs) (echoed, error) {
			c.Then(func(any) (any, error) { return []string{in.Word}, nil })
			return echoed{}, nil
		}))
	ctx := context.Background()

	got, err := Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, echo, echoArgs{Word: "hi"})
	if err != nil || got != (echoed{Word: "hi", Times: 2}) {
		t.Errorf("echo = %+v, %v; want {hi 2}", got, err)
	}

	got, err = Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, refuse, echoArgs{Word: "way"})
	if store.CodeOf(err) != store.CodeInvalidArgument || !strings.Contains(err.Error(), "no way") {
		t.Errorf("refuse: err %v, want the handler's invalid_argument denial", err)
	}
	if got != (echoed{}) {
		t.Errorf("refuse returned %+v with its error, want the zero value", got)
	}

	got, err = Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, replaced, echoArgs{Word: "then"})
	if err != nil || got != (echoed{Word: "then", Times: 3}) {
		t.Errorf("replaced = %+v, %v; want {then 3} decoded from the hook's map", got, err)
	}

	got, err = Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, garbled, echoArgs{Word: "x"})
	if err == nil || !strings.Contains(err.Error(), "decode the result of test.garbled") || got != (echoed{}) {
		t.Errorf("garbled = %+v, %v; want a decode error and the zero value", got, err)
	}

	if _, err := Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, missing, echoArgs{}); store.CodeOf(err) != store.CodeMethodUnknown {
		t.Errorf("unregistered name: err %v, want method_unknown", err)
	}

	// Arguments that do not encode never reach the registry.
	const unencodable Name[func(), echoed] = "test.echo"
	if _, err := Invoke(ctx, reg, OperatorPrincipal(), TransportGUI, unencodable, func() {}); err == nil || !strings.Contains(err.Error(), "encode the arguments of test.echo") {
		t.Errorf("unencodable arguments: err %v", err)
	}

	var methods []string
	for _, rec := range f.audit(t) {
		if rec.Transport != string(TransportGUI) {
			t.Errorf("audit record %s over %q, want gui", rec.Method, rec.Transport)
		}
		methods = append(methods, rec.Method+" "+rec.Outcome)
	}
	want := "test.echo ok,test.refuse invalid_argument,test.replaced ok,test.garbled ok,test.missing method_unknown"
	if strings.Join(methods, ",") != want {
		t.Errorf("audit records:\n%s\nwant\n%s", strings.Join(methods, ","), want)
	}
}
