package mcpserver

import (
	"fmt"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// work.list carries the packet counts by repository and state, scoped as
// the listing: a token on one repository sees its own counts and is
// refused every repository's; the person sees each repository's, however
// few packets the page holds.
func TestWorkListCounts(t *testing.T) {
	w := newObjectWorld(t)
	f := w.f
	list := func(p Principal, args string) (WorkList, store.Code) {
		t.Helper()
		res := f.invoke(p, TransportMCP, "work.list", args)
		if res.Code() != "ok" {
			return WorkList{}, res.Code()
		}
		return res.Value.(WorkList), "ok"
	}
	own, code := list(w.stranger, fmt.Sprintf(`{"repository_id":%q,"limit":1}`, w.repoB.ID))
	if code != "ok" {
		t.Fatalf("own repository's listing: %s", code)
	}
	if len(own.Counts) != 1 || own.Counts[w.repoB.ID].States[store.PacketQueued] != 1 {
		t.Errorf("own repository's counts = %+v", own.Counts)
	}
	if _, code := list(w.stranger, `{}`); code != store.CodeCapabilityScopeMismatch {
		t.Errorf("every repository's listing for a token on one: %s", code)
	}
	if _, code := list(w.stranger, fmt.Sprintf(`{"repository_id":%q}`, w.repoA.ID)); code != store.CodeCapabilityScopeMismatch {
		t.Errorf("another repository's listing: %s", code)
	}
	all, code := list(OperatorPrincipal(), `{"limit":1}`)
	if code != "ok" {
		t.Fatalf("every repository's listing: %s", code)
	}
	a := all.Counts[w.repoA.ID].States
	if len(all.Packets) != 1 || a[store.PacketQueued] != 1 || a[store.PacketClaimed]+a[store.PacketInProgress] != 1 ||
		all.Counts[w.repoB.ID].States[store.PacketQueued] != 1 {
		t.Errorf("every repository's listing: %d packets, counts %+v", len(all.Packets), all.Counts)
	}
}
