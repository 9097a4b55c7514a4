package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Repository is a folder agents may work in.
type Repository struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	CreatedAt time.Time `json:"created_at"`
	RepositorySettings
}

// Isolation says where a repository's supervised agents work.
type Isolation string

const (
	// IsolationDefault is a worktree of its own for each agent in a git
	// repository, the folder itself otherwise.
	IsolationDefault Isolation = ""
	// IsolationWorktree asks for a worktree: an agent in a folder that is
	// not a git repository does not start.
	IsolationWorktree Isolation = "worktree"
	// IsolationNone runs agents in the repository's folder itself.
	IsolationNone Isolation = "none"
)

// Landing is how a packet's commits reach their base branch.
type Landing string

const (
	// LandingDefault is LandingMerge.
	LandingDefault Landing = ""
	// LandingMerge makes a merge commit on the base branch.
	LandingMerge Landing = "merge"
	// LandingSquash makes one commit of the packet's changes.
	LandingSquash Landing = "squash"
	// LandingRebase puts the packet's commits, rebased, on the base
	// branch, which fast-forwards to them.
	LandingRebase Landing = "rebase"
	// LandingPullRequest pushes the branch to the remote and opens a pull
	// request; the base branch does not move.
	LandingPullRequest Landing = "pull-request"
)

// Valid reports whether l is one of the modes (or the default).
func (l Landing) Valid() bool {
	switch l {
	case LandingDefault, LandingMerge, LandingSquash, LandingRebase, LandingPullRequest:
		return true
	}
	return false
}

// RepositorySettings are what a person sets on a repository.
type RepositorySettings struct {
	Isolation Isolation `json:"isolation,omitempty" jsonschema:"worktree (each agent in a git worktree of its own; the default for git repositories) or none (agents work in the folder itself)"`
	// Base is the branch agents' worktrees start from and their work lands
	// on; "" is the branch checked out in the repository's folder.
	Base string `json:"base,omitempty" jsonschema:"the branch worktrees start from; default: the branch checked out in the folder"`
	// Setup is a command line run in each new worktree before its agent
	// starts ("" runs an executable .switchboard/setup there, if any). The
	// supervisor runs it with /bin/sh -c: it is the person's own command,
	// typed in their settings, as they would type it in a terminal.
	Setup string `json:"setup,omitempty" jsonschema:"a command line run in each new worktree before its agent starts (by /bin/sh -c); default: the worktree's executable .switchboard/setup, if any"`
	// Landing is work.land's mode when the call names none; "" is merge.
	Landing Landing `json:"landing,omitempty" jsonschema:"how packets land when no mode is given: merge (default), squash, rebase or pull-request"`
	// Remote is the git remote a pull request is pushed to; "" is origin.
	Remote string `json:"remote,omitempty" jsonschema:"the git remote pull requests are pushed to; default: origin"`
	// FullAuto is set once a person confirmed that agents here may run in
	// their CLI's bypass mode (agent.start's confirm_full_auto). Changing
	// the other settings keeps it.
	FullAuto *FullAutoConfirmation `json:"full_auto,omitempty" jsonschema:"when and through what a person confirmed full-auto agents for this repository; set by agent.start with confirm_full_auto, kept by repo.configure"`
	// Unconfined is set once a person chose that agents here run without
	// Switchboard's sandbox (repository.unconfined); like FullAuto, a
	// settings form neither sets nor clears it.
	Unconfined *Confirmation `json:"unconfined,omitempty" jsonschema:"when and through what a person chose that agents in this repository run unconfined; set by repository.unconfined, kept by repo.configure"`
}

// maxBranchName bounds a base branch's name; git itself allows more, no
// person needs it.
const maxBranchName = 200

// MaxSetupCommand bounds a repository's setup command line: a command, not
// a script (a script belongs in .switchboard/setup).
const MaxSetupCommand = 2048

// Validate checks the settings' form; whether the branch exists is git's to
// say when an agent starts.
func (s RepositorySettings) Validate() error {
	switch s.Isolation {
	case IsolationDefault, IsolationWorktree, IsolationNone:
	default:
		return Deny(CodeInvalidArgument, "isolation must be %q or %q, not %q", IsolationWorktree, IsolationNone, s.Isolation)
	}
	if len(s.Base) > maxBranchName || strings.HasPrefix(s.Base, "-") || strings.ContainsFunc(s.Base, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r)
	}) {
		return Deny(CodeInvalidArgument, "base %q is not a branch name", s.Base)
	}
	if !s.Landing.Valid() {
		return Deny(CodeInvalidArgument, "landing must be %q, %q, %q or %q, not %q", LandingMerge, LandingSquash, LandingRebase, LandingPullRequest, s.Landing)
	}
	// A remote's name is a config section's subsection: git takes almost
	// anything there, but nothing of this kind names a remote a person made.
	if len(s.Remote) > maxBranchName || strings.HasPrefix(s.Remote, "-") || strings.ContainsFunc(s.Remote, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\"`, r)
	}) {
		return Deny(CodeInvalidArgument, "remote %q is not a remote's name", s.Remote)
	}
	return checkSetup(s.Setup)
}

// checkSetup refuses a setup command that is too long, not UTF-8, blank, or
// holds control characters (a newline would hide a second command from a
// person reading the setting on one line).
func checkSetup(cmd string) error {
	switch {
	case cmd == "":
		return nil
	case len(cmd) > MaxSetupCommand:
		return Deny(CodeInvalidArgument, "setup command is %d bytes, at most %d allowed", len(cmd), MaxSetupCommand)
	case !utf8.ValidString(cmd):
		return Deny(CodeInvalidArgument, "setup command is not valid UTF-8")
	case strings.TrimSpace(cmd) == "":
		return Deny(CodeInvalidArgument, "setup command is blank; leave it empty for none")
	case strings.ContainsFunc(cmd, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
		return Deny(CodeInvalidArgument, "setup command holds a control character (one line, no newline)")
	}
	return nil
}

// ConfigureRepository replaces a repository's settings.
func (tx *Tx) ConfigureRepository(id string, s RepositorySettings) (Repository, error) {
	if err := s.Validate(); err != nil {
		return Repository{}, err
	}
	r, err := tx.Repository(id)
	if err != nil {
		return Repository{}, err
	}
	// The confirmation of full auto and the choice of unconfined agents
	// are separate, audited acts (ConfirmFullAuto, SetUnconfined): a
	// settings form that does not carry them must not withdraw them, nor
	// may one forge them.
	s.FullAuto, s.Unconfined = r.FullAuto, r.Unconfined
	r.RepositorySettings = s
	return r, tx.putRepository(r)
}

func (tx *Tx) putRepository(r Repository) error {
	if tx.db.instance != "" {
		r.Path = "" // each instance's is in repo_paths
	}
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode repository: %w", err)
	}
	if err := tx.tx.Bucket(bucketRepositories).Put([]byte(r.ID), v); err != nil {
		return fmt.Errorf("store repository %s: %w", r.ID, err)
	}
	return nil
}

// NewID returns a random identifier that carries its kind, e.g. "repo_3f…".
func NewID(prefix string) string {
	var b [10]byte
	rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// RegisterRepository records path as a repository. Registering a path twice
// returns the existing repository, so scripts may run it idempotently. In
// team mode a repository is known across instances by its name (default:
// the folder's), and each instance keeps its own folder for it: a clone
// registered under an existing name on another instance is that
// repository, with this instance's path.
func (tx *Tx) RegisterRepository(name, path string) (Repository, bool, error) {
	if !filepath.IsAbs(path) {
		return Repository{}, false, Deny(CodeInvalidArgument, "repository path must be absolute")
	}
	path = filepath.Clean(path)
	repos, err := tx.Repositories()
	if err != nil {
		return Repository{}, false, err
	}
	for _, r := range repos {
		if r.Path == path {
			return r, false, nil
		}
	}
	if name == "" {
		name = filepath.Base(path)
	}
	if tx.db.instance != "" {
		for _, r := range repos {
			if r.Name != name {
				continue
			}
			if r.Path != "" {
				return Repository{}, false, Deny(CodeInvalidArgument,
					"repository %q is registered here already, at %s: give this folder another name", name, r.Path)
			}
			r.Path = path
			return r, false, tx.putRepoPath(r.ID, path)
		}
	}
	r := Repository{ID: NewID("repo"), Name: name, Path: path, CreatedAt: tx.now}
	if err := tx.putRepository(r); err != nil {
		return Repository{}, false, err
	}
	if tx.db.instance != "" {
		if err := tx.putRepoPath(r.ID, path); err != nil {
			return Repository{}, false, err
		}
	}
	return r, true, nil
}

func (tx *Tx) putRepoPath(repoID, path string) error {
	if err := tx.tx.Bucket(bucketRepoPaths).Put(repoPathKey(tx.db.instance, repoID), []byte(path)); err != nil {
		return fmt.Errorf("store repository %s's folder: %w", repoID, err)
	}
	return nil
}

// localPath sets r.Path to this instance's folder for r in team mode ("" when
// it has none: the repository was registered on other instances only); with
// bbolt the record's own path is the one.
func (tx *Tx) localPath(r *Repository) {
	if tx.db.instance == "" {
		return
	}
	r.Path = string(tx.tx.Bucket(bucketRepoPaths).Get(repoPathKey(tx.db.instance, r.ID)))
}

// LocalRepository is Repository for a call that works in the folder (an
// agent's start, a diff, a landing): in team mode a repository registered
// on other instances only has none here, and that is refused.
func (tx *Tx) LocalRepository(id string) (Repository, error) {
	r, err := tx.Repository(id)
	if err == nil && r.Path == "" {
		err = Deny(CodeInvalidState, "repository %q (%s) has no folder on this instance: register a clone of it here under that name", r.Name, r.ID)
	}
	return r, err
}

// RepositoryExists reports whether id is registered.
func (tx *Tx) RepositoryExists(id string) bool {
	return tx.tx.Bucket(bucketRepositories).Get([]byte(id)) != nil
}

// Repository returns one repository by id, with this instance's folder.
func (tx *Tx) Repository(id string) (Repository, error) {
	v := tx.tx.Bucket(bucketRepositories).Get([]byte(id))
	if v == nil {
		return Repository{}, Deny(CodeRepoNotRegistered, "repository %s is not registered", id)
	}
	var r Repository
	if err := json.Unmarshal(v, &r); err != nil {
		return Repository{}, fmt.Errorf("decode repository %s: %w", id, err)
	}
	tx.localPath(&r)
	return r, nil
}

// Repositories lists every repository in id order, each with this
// instance's folder.
func (tx *Tx) Repositories() ([]Repository, error) {
	var out []Repository
	err := tx.tx.Bucket(bucketRepositories).ForEach(func(k, v []byte) error {
		var r Repository
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decode repository %s: %w", k, err)
		}
		tx.localPath(&r)
		out = append(out, r)
		return nil
	})
	return out, err
}

// Counts are the sizes of the main collections, for status.
type Counts struct {
	// Tokens, LiveTokens and AuditRecords belong to no repository: a caller
	// whose scope is some repositories only is told 0.
	Tokens       int `json:"tokens"`
	LiveTokens   int `json:"live_tokens"`
	Repositories int `json:"repositories"`
	AuditRecords int `json:"audit_records"`
	// Scoped is set when the counts are of some repositories only: the
	// caller's repositories are counted, nothing else is.
	Scoped bool `json:"scoped"`
}

// Counts returns the collection sizes a caller with scope may see: every
// count for a scope of all repositories, else the number of its
// repositories alone. bbolt's Bucket.Stats cannot be used: it reads
// committed pages only, so inside an Update it misses what that
// transaction wrote. Audit sequences are gap-free from 1, so the last key is
// the record count (O(log n) on a large log); repositories are few.
func (tx *Tx) Counts(scope Scope) (Counts, error) {
	var c Counts
	if !scope.All {
		c.Scoped = true
		for _, id := range scope.Repositories {
			if tx.RepositoryExists(id) {
				c.Repositories++
			}
		}
		return c, nil
	}
	c.AuditRecords = int(tx.LastAuditSeq())
	if err := tx.tx.Bucket(bucketRepositories).ForEach(func(_, _ []byte) error {
		c.Repositories++
		return nil
	}); err != nil {
		return c, err
	}
	toks, err := tx.Tokens()
	if err != nil {
		return c, err
	}
	c.Tokens = len(toks)
	for _, t := range toks {
		if checkLive(t, tx.now) == nil {
			c.LiveTokens++
		}
	}
	return c, nil
}
