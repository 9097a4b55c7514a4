package store

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Code is one of the stable denial and error codes of the spec. Clients match
// on these strings, so they never change once released.
type Code string

// Token and capability denials (SPEC §3).
const (
	CodeTokenMissing            Code = "token_missing"
	CodeTokenMalformed          Code = "token_malformed"
	CodeTokenInvalid            Code = "token_invalid"
	CodeTokenRevoked            Code = "token_revoked"
	CodeTokenExpired            Code = "token_expired"
	CodeCapabilityMissing       Code = "capability_missing"
	CodeCapabilityScopeMismatch Code = "capability_scope_mismatch"
	CodeCapabilityExpired       Code = "capability_expired"
	CodeRepoNotRegistered       Code = "repo_not_registered"
	CodeMethodUnknown           Code = "method_unknown"
	CodeToolHidden              Code = "tool_hidden"
)

// Method errors that are not about who is calling.
const (
	CodeInvalidArgument Code = "invalid_argument"
	CodeNotFound        Code = "not_found"
	CodeInvalidState    Code = "invalid_state" // the target's state forbids it: a report from an ended session, a second answer
	CodeInternal        Code = "internal_error"
	// CodeStoreUnavailable is a call that could not reach the shared
	// database (team mode): nothing was done; try again.
	CodeStoreUnavailable Code = "store_unavailable"
)

// Workflow refusals (SPEC §5): work packets, leases and artifacts.
const (
	CodeLeaseLost            Code = "lease_lost"            // the lease named is not the packet's live lease: stale, expired, another session's
	CodeArtifactsMissing     Code = "artifacts_missing"     // complete before every expected artifact is published
	CodeWriteScopeViolation  Code = "write_scope_violation" // an artifact path outside the packet's write scope or the repository
	CodeArtifactMismatch     Code = "artifact_mismatch"     // an artifact is not what the agent claims: a path artifact's file is missing, not a regular file, or of another size or sha256; an inline one of another sha256
	CodeAgentUnavailable     Code = "agent_unavailable"     // the profile's command is not installed, or the agent failed to start
	CodeWorkspaceUnavailable Code = "workspace_unavailable" // the git worktree an agent was to work in could not be made
	CodeMergeConflict        Code = "merge_conflict"        // a packet's changes conflict with its base branch: nothing moved
	CodeRepositoryEmpty      Code = "repository_empty"      // the repository has no commit yet, and an agent's worktree starts from one: nothing was made
	CodeCheckoutInTheWay     Code = "checkout_in_the_way"   // landing would touch the person's uncommitted or untracked files, or an operation in progress: nothing moved
	CodeDependsOnPacket      Code = "depends_on_packet"     // a packet's commits cannot land without another packet's, not landed yet: nothing moved
)

// Denial is an error with a stable code and a one-line reason for people.
// The reason never contains token material.
type Denial struct {
	Code   Code
	Reason string
	// Paths are the files the denial is about, for a caller to act on
	// without reading the reason: the conflicting files of a
	// merge_conflict, the files outside the scope of a
	// write_scope_violation. At most MaxDenialPaths; the reason says how
	// many there were.
	Paths []string
	// Packets are the packets the denial is about, the one to land first
	// of a depends_on_packet among them, for a caller to offer.
	Packets []string
}

// MaxDenialPaths bounds a denial's Paths, as MaxReasonBytes its reason.
const MaxDenialPaths = 20

// WithPaths sets d's Paths to the first MaxDenialPaths of paths.
func (d *Denial) WithPaths(paths []string) *Denial {
	d.Paths = slices.Clone(paths[:min(len(paths), MaxDenialPaths)])
	return d
}

// WithPackets sets d's Packets to the first MaxDenialPaths of ids.
func (d *Denial) WithPackets(ids []string) *Denial {
	d.Packets = slices.Clone(ids[:min(len(ids), MaxDenialPaths)])
	return d
}

func (d *Denial) Error() string { return string(d.Code) + ": " + d.Reason }

// MaxReasonBytes bounds a denial's reason. Reasons quote what the caller
// sent (an id, a name, a decoder's complaint about its JSON) and travel back
// in answers and into logs: their length must not be the caller's choice.
const MaxReasonBytes = 1024

// Deny returns a *Denial with a formatted reason, cut to MaxReasonBytes.
func Deny(code Code, format string, args ...any) *Denial {
	reason := fmt.Sprintf(format, args...)
	if len(reason) > MaxReasonBytes {
		cut := MaxReasonBytes - len("…")
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut] + "…"
	}
	return &Denial{Code: code, Reason: reason}
}

// CodeOf returns the code carried by err, or CodeInternal when err carries
// none. A nil err has no code.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var d *Denial
	if errors.As(err, &d) {
		return d.Code
	}
	if errors.Is(err, ErrUnavailable) {
		return CodeStoreUnavailable
	}
	return CodeInternal
}

// ErrUnavailable marks a failure of the database itself, not of the call:
// the PostgreSQL server unreachable, restarting, or not answering in time.
// Nothing of the transaction it ended was committed; the call may be made
// again once the server is back.
var ErrUnavailable = errors.New("the database is unavailable")

// ErrLocked is returned by Open when another process holds the database:
// Switchboard is already running with this data directory.
var ErrLocked = errors.New("database is locked by another process")

// ErrNewerSchema is returned by Open when the database was written by a newer
// Switchboard whose schema this one does not know.
var ErrNewerSchema = errors.New("database schema is newer than this program")

// ErrAuditChain is returned by VerifyAudit when a record does not follow from
// the one before it.
var ErrAuditChain = errors.New("audit hash chain broken")

// IsTokenDenial reports whether c is about the bearer token itself, which
// HTTP answers with 401 and a WWW-Authenticate challenge.
func (c Code) IsTokenDenial() bool {
	switch c {
	case CodeTokenMissing, CodeTokenMalformed, CodeTokenInvalid, CodeTokenRevoked, CodeTokenExpired:
		return true
	}
	return false
}

// ErrCorrupt marks a stored structure that does not hold together: a link,
// an index entry or a record that is missing, short or says it is
// something else. It is never a caller's mistake.
var ErrCorrupt = errors.New("stored data is inconsistent")
