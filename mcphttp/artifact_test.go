package mcphttp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A path artifact is checked against the file: a wrong sha256, a wrong
// size or a missing file is artifact_mismatch (audited as such), the true
// ones are recorded, and the packet completes with it.
func TestPublishPathArtifact(t *testing.T) {
	f, url, repo := workflowEnv(t)
	const body = "# report\nall done\n"
	if err := os.MkdirAll(filepath.Join(repo.Path, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo.Path, "out", "report.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	pkt := f.createPacket(t, repo.ID, map[string]any{
		"write_scope":        []string{"out/**"},
		"expected_artifacts": []map[string]string{{"name": "report", "kind": "markdown"}},
	})
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	lease := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 1})["lease_id"].(string)
	publish := func(path, sha string, size int) map[string]any {
		return map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease, "name": "report", "path": path, "sha256": sha, "size": size}
	}
	for name, c := range map[string]struct {
		args   map[string]any
		reason string
	}{
		"wrong sha256": {publish("out/report.md", hexSHA256("# report\n"), len(body)), "sha256 is " + hexSHA256(body)},
		"wrong size":   {publish("out/report.md", hexSHA256(body), len(body)+1), fmt.Sprintf("is %d bytes, not %d", len(body), len(body)+1)},
		"missing file": {publish("out/missing.md", hexSHA256(body), len(body)), "does not exist"},
	} {
		sc := a.call("artifact_publish", c.args)
		if sc["ok"] != false || sc["error"] != string(store.CodeArtifactMismatch) {
			t.Fatalf("%s: %v, want artifact_mismatch", name, sc)
		}
		if msg := fmt.Sprint(sc["message"]); !strings.Contains(msg, c.reason) {
			t.Errorf("%s: message %q does not say %q", name, msg, c.reason)
		}
		if rec := f.auditRecord(t, sc["audit_id"].(string)); rec.Outcome != string(store.CodeArtifactMismatch) {
			t.Errorf("%s: audited as %q", name, rec.Outcome)
		}
	}
	a.denied("work_complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease}, store.CodeArtifactsMissing)

	got := a.ok("artifact_publish", publish("out/report.md", strings.ToUpper(hexSHA256(body)), len(body)))["artifact"].(map[string]any)
	if got["path"] != "out/report.md" || got["sha256"] != hexSHA256(body) || got["size"] != float64(len(body)) || got["kind"] != "markdown" {
		t.Fatalf("published %v", got)
	}
	a.ok("work_complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease, "summary": "done"})
}

// The file check runs before the registry authorizes the call in its
// transaction, but what it finds is held back until then: a lease holder
// without artifact:write on the packet's repository is refused as out of
// scope, and learns nothing of the file (not its hash, not whether it is
// there).
func TestPublishPathArtifactOutOfScope(t *testing.T) {
	f := newFixture(t)
	a := f.registerRepo(t, t.TempDir())
	b := f.registerRepo(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(b.Path, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, _ := f.createToken(t, store.TokenSpec{Label: "mixed", Kind: store.KindClient, Grants: []store.Grant{
		{Capability: store.CapWorkClaim, Repositories: []string{a.ID, b.ID}},
		{Capability: store.CapSessionReport, Repositories: []string{a.ID, b.ID}},
		{Capability: store.CapArtifactWrite, Repositories: []string{a.ID}},
	}})
	p := mcpserver.TokenPrincipal(tok)
	pkt := f.createPacket(t, b.ID, map[string]any{"write_scope": []string{"**"}})
	res := f.invoke(p, mcpserver.TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, b.ID))
	wantCode(t, res, "ok")
	ses := res.Value.(mcpserver.ReportResult).SessionID
	res = f.invoke(p, mcpserver.TransportMCP, "work.await_packet", fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":-1}`, b.ID, ses))
	wantCode(t, res, "ok")
	lease := res.Value.(mcpserver.AwaitResult).LeaseID
	for _, path := range []string{"secret.txt", "missing.txt"} {
		res = f.invoke(p, mcpserver.TransportMCP, "artifact.publish", fmt.Sprintf(`{"packet_id":%q,"session_id":%q,"lease_id":%q,"name":"x","path":%q,"sha256":%q,"size":1}`,
			pkt, ses, lease, path, hexSHA256("guess")))
		wantCode(t, res, store.CodeCapabilityScopeMismatch)
		if msg := res.Err.Error(); strings.Contains(msg, hexSHA256("secret")) || strings.Contains(msg, "exist") || strings.Contains(msg, path) {
			t.Errorf("publish %s out of scope: %q tells of the file", path, msg)
		}
	}
}
