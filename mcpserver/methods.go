package mcpserver

import (
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodStatus             Name[RepoScope, StatusResult]                      = "status"
	MethodRepositoryRegister Name[RepositoryRegisterArgs, RepositoryRegistered] = "repository.register"
	MethodRepositoryList     Name[NoArgs, RepositoryList]                       = "repository.list"
	MethodAuditQuery         Name[store.AuditFilter, AuditRecords]              = "audit.query"
	MethodAuditVerify        Name[NoArgs, AuditVerifyResult]                    = "audit.verify"
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
	// Agents is the supervisor the agent.* methods drive; nil where no
	// agents run (the CLI without the app), and they say so.
	Agents *supervisor.Supervisor
	// Worktrees is the folder agents' git worktrees are made in ("<data
	// dir>/worktrees"); "" runs every agent in its repository's folder.
	Worktrees string
	// Sandbox confines supervised agents; nil starts them unconfined
	// (a registry without the app's folders, in tests).
	Sandbox *Sandbox
	// RefreshUsage, when set, reads a supervised session's token usage
	// now (the daemon reads its CLI's files), so that a completion records
	// it in its own transaction and gives its packet the reply that asked
	// for it.
	RefreshUsage UsageRefresher
	// InstanceGrace is how long an instance sharing the database may go
	// without a heartbeat before it is taken for lost (team mode); 0 is
	// DefaultInstanceGrace.
	InstanceGrace time.Duration
	// OnWait, when set, is called with the key of every long poll that
	// parks (QueueKey, QuestionKey, TraceKey), once it holds its channel: a
	// test learns from it that a wait is parked, rather than by polling.
	OnWait func(key string)
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
	r.registerDiscovery()
	r.registerResources()
	r.registerPrompts()
	r.registerWork()
	r.registerSessions()
	r.registerSessionEnd()
	r.registerSignals()
	r.registerWorkResources()
	r.registerAgents()
	r.registerResume()
	r.registerSettings()
	r.registerSandboxSettings()
	r.registerSessionViews()
	r.registerWorkspaces()
	r.registerRepositoryEdits()
	r.registerDiffs()
	r.registerConflicts()
	r.registerLanding()
	r.registerLandPlan()
	r.registerPullRequestState()
	r.registerRebase()
	r.registerReviewers()
	r.registerWorktrees()
	r.registerStartup()
	r.registerInstances()
	r.registerUsage(opts)
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
	r.Register(Define(MethodStatus, On(Global, store.CapStatusRead), ReadOnly,
		"Switchboard's version, endpoint, counts and keyring state. A cheap first call to check the connection and the token.",
		func(c *Call, _ RepoScope) (StatusResult, error) {
			counts, err := c.Tx.Counts(c.Scope())
			if err != nil {
				return StatusResult{}, err
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
		}))
}

// RepositoryRegisterArgs are the arguments of repository.register.
type RepositoryRegisterArgs struct {
	Path string `json:"path" jsonschema:"absolute path of the folder"`
	Name string `json:"name,omitempty" jsonschema:"display name; default: the folder's name"`
}

// RepositoryRegistered is the result of repository.register.
type RepositoryRegistered struct {
	Repository store.Repository `json:"repository"`
	// Created is false when the path was registered already.
	Created bool `json:"created"`
}

// RepositoryList is the result of repository.list.
type RepositoryList struct {
	Repositories []store.Repository `json:"repositories"`
}

func (r *Registry) registerRepositories() {
	r.Register(Define(MethodRepositoryRegister, On(Global, store.CapAdmin), Hidden,
		"Register a folder as a repository agents may work in.",
		func(c *Call, in RepositoryRegisterArgs) (RepositoryRegistered, error) {
			repo, created, err := c.Tx.RegisterRepository(in.Name, in.Path)
			return RepositoryRegistered{Repository: repo, Created: created}, err
		}))
	r.Register(Define(MethodRepositoryList, On(Global, store.CapStatusRead), ReadOnly,
		"List the registered repositories: the ids that work tools take as repository_id, with names and paths.",
		listRepositories))
}

// listRepositories lists the repositories the caller may use the method's
// capability on.
func listRepositories(c *Call, _ NoArgs) (RepositoryList, error) {
	repos, err := c.Tx.Repositories()
	scope := c.Scope()
	repos = slices.DeleteFunc(repos, func(r store.Repository) bool { return !scope.Contains(r.ID) })
	if repos == nil {
		repos = []store.Repository{}
	}
	return RepositoryList{Repositories: repos}, err
}

// AuditRecords is the result of audit.query.
type AuditRecords struct {
	Records []store.AuditRecord `json:"records"`
	// LastSeq is the log's newest sequence when the records were read:
	// every record up to it was there to match. A follower goes on after
	// it (after the last record, for a full page), not after the query's
	// own audit record, which a Slow method writes after its read.
	LastSeq uint64 `json:"last_seq"`
}

// AuditVerifyResult is the result of audit.verify.
type AuditVerifyResult struct {
	OK           bool                    `json:"ok"`
	Verification store.AuditVerification `json:"verification"`
	// Problem names the first broken record when OK is false.
	Problem string `json:"problem,omitempty"`
}

func (r *Registry) registerAudit() {
	// Slow: a filter that matches little scans much of the log, and in the
	// shared write transaction that scan would hold every other call's
	// commit (a 1-in-100 filter over a million records: 85-270 ms).
	r.Register(Define(MethodAuditQuery, On(Repository, store.CapAuditRead), ReadOnly|Slow,
		"Audit records, newest first, filtered by method, outcome, keyid, session, transport or repository; page with before_seq (older) or after_seq (newer).",
		func(c *Call, f store.AuditFilter) (AuditRecords, error) {
			recs, err := c.Tx.QueryAudit(f)
			return AuditRecords{Records: recs, LastSeq: c.Tx.LastAuditSeq()}, err
		}))
	r.Register(Define(MethodAuditVerify, On(Global, store.CapAdmin), Hidden|ReadOnly|Slow,
		"Check the audit log's hash chain from the first record to the last.",
		func(c *Call, _ NoArgs) (AuditVerifyResult, error) {
			v, err := c.Tx.VerifyAudit()
			if err != nil {
				return AuditVerifyResult{OK: false, Verification: v, Problem: err.Error()}, nil
			}
			return AuditVerifyResult{OK: true, Verification: v}, nil
		}))
}
