package mcpserver

import (
	"errors"
	"log/slog"
	"slices"

	"github.com/switchboard-dev/switchboard/store"
)

// Env is what the methods need from the running program but cannot own: the
// listener's address, the keyring, the client token held in memory. main
// wires the daemon's; the CLI without a daemon wires its own.
type Env interface {
	// Endpoint is the MCP URL, or "" when the listener is off or nothing
	// runs.
	Endpoint() string
	// Running reports whether a daemon serves this database.
	Running() bool
	// KeyringState says whether the OS keyring answers.
	KeyringState() string
	// ClientToken returns the raw client token the tray copies.
	ClientToken() (string, error)
	// ClientTokenRotated is called after a rotation of the client token has
	// committed, to keep the new secret (keyring, memory).
	ClientTokenRotated(raw string) error
}

// Options configure a Registry.
type Options struct {
	Version string
	Env     Env
	Log     *slog.Logger
}

// SettingClientKeyID names the setting that records which token is the
// client token.
const SettingClientKeyID = "client_keyid"

// New returns a registry over db with every method of Switchboard.
func New(db *store.DB, opts Options) *Registry {
	r := NewRegistry(db, opts)
	r.registerStatus()
	r.registerRepositories()
	r.registerTokens()
	r.registerAudit()
	return r
}

// offlineEnv stands for a program with no listener and no client token in
// memory.
type offlineEnv struct{}

func (offlineEnv) Endpoint() string     { return "" }
func (offlineEnv) Running() bool        { return false }
func (offlineEnv) KeyringState() string { return "unknown" }
func (offlineEnv) ClientToken() (string, error) {
	return "", errors.New("no client token in this process")
}
func (offlineEnv) ClientTokenRotated(string) error { return nil }

// schemaObject is the input schema of methods whose only argument is the
// optional repository scope.
const schemaRepoScoped = `{"type":"object","properties":{"repository_id":{"type":"string","description":"Scope the call to one repository."}},"additionalProperties":false}`

// StatusResult is the result of status.
type StatusResult struct {
	Version       string       `json:"version"`
	Running       bool         `json:"running"`
	Endpoint      string       `json:"endpoint,omitempty"`
	Keyring       string       `json:"keyring"`
	SchemaVersion int          `json:"schema_version"`
	Counts        store.Counts `json:"counts"`
	Principal     string       `json:"principal"`
}

func (r *Registry) registerStatus() {
	r.Register(Method{
		Name:        "status",
		Capability:  store.CapStatusRead,
		Flags:       ReadOnly,
		Description: "Switchboard's version, endpoint, counts and keyring state.",
		InputSchema: []byte(schemaRepoScoped),
		Handler: func(c *Call) (any, error) {
			var in struct {
				RepositoryID string `json:"repository_id"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			counts, err := c.Tx.Counts()
			if err != nil {
				return nil, err
			}
			who := "operator"
			if !c.Principal.Operator {
				who = "token " + c.Principal.KeyID
			}
			return StatusResult{
				Version:       r.version,
				Running:       r.env.Running(),
				Endpoint:      r.env.Endpoint(),
				Keyring:       r.env.KeyringState(),
				SchemaVersion: c.Tx.StoredSchemaVersion(),
				Counts:        counts,
				Principal:     who,
			}, nil
		},
	})
}

func (r *Registry) registerRepositories() {
	r.Register(Method{
		Name:        "repository.register",
		Capability:  store.CapAdmin,
		Flags:       Hidden,
		Description: "Register a folder as a repository agents may work in.",
		InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"},"name":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			var in struct {
				Path string `json:"path"`
				Name string `json:"name"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			repo, created, err := c.Tx.RegisterRepository(in.Name, in.Path)
			if err != nil {
				return nil, err
			}
			return map[string]any{"repository": repo, "created": created}, nil
		},
	})
	r.Register(Method{
		Name:        "repository.list",
		Capability:  store.CapStatusRead,
		Flags:       ReadOnly,
		Description: "List the registered repositories (id, name, path).",
		InputSchema: []byte(`{"type":"object","additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			repos, err := c.Tx.Repositories()
			if err != nil {
				return nil, err
			}
			if repos == nil {
				repos = []store.Repository{}
			}
			return map[string]any{"repositories": repos}, nil
		},
	})
}

func (r *Registry) registerAudit() {
	r.Register(Method{
		Name:        "audit.query",
		Capability:  store.CapAuditRead,
		Flags:       ReadOnly,
		Description: "Audit records, newest first, with filters and paging (before_seq / after_seq).",
		InputSchema: []byte(`{"type":"object","properties":{"method":{"type":"string"},"outcome":{"type":"string"},"keyid":{"type":"string"},"session_id":{"type":"string"},"transport":{"type":"string"},"repository_id":{"type":"string"},"before_seq":{"type":"integer","minimum":0},"after_seq":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":1000}},"additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			var f store.AuditFilter
			if err := c.Decode(&f); err != nil {
				return nil, err
			}
			// With no repository named, authorization let any grant of
			// audit:read through; a token scoped to some repositories must
			// not read every repository's records.
			if f.Repository == "" {
				all, err := holdsEverywhere(c.Tx, c.Principal, store.CapAuditRead)
				if err != nil {
					return nil, err
				}
				if !all {
					return nil, store.Deny(store.CodeCapabilityScopeMismatch, "token %s holds %s for some repositories only: name one with repository_id", c.Principal.KeyID, store.CapAuditRead)
				}
			}
			recs, err := c.Tx.QueryAudit(f)
			if err != nil {
				return nil, err
			}
			return map[string]any{"records": recs}, nil
		},
	})
	r.Register(Method{
		Name:        "audit.verify",
		Capability:  store.CapAdmin,
		Flags:       Hidden | ReadOnly,
		Description: "Check the audit log's hash chain from the first record to the last.",
		InputSchema: []byte(`{"type":"object","additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			v, err := c.Tx.VerifyAudit()
			if err != nil {
				return map[string]any{"ok": false, "verification": v, "problem": err.Error()}, nil
			}
			return map[string]any{"ok": true, "verification": v}, nil
		},
	})
}

// holdsEverywhere reports whether p holds an unexpired grant of c on every
// repository.
func holdsEverywhere(tx *store.Tx, p Principal, c store.Capability) (bool, error) {
	if p.Operator {
		return true, nil
	}
	tok, err := tx.TokenByKeyID(p.KeyID)
	if err != nil {
		return false, err
	}
	for _, g := range tok.Grants {
		if g.Capability == c && slices.Contains(g.Repositories, store.AllRepositories) && (g.ExpiresAt == nil || tx.Now().Before(*g.ExpiresAt)) {
			return true, nil
		}
	}
	return false, nil
}
