package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Artifacts: what a packet's sessions publish, stored under the packet in
// the artifacts bucket (see work.go).

// Artifact is a published result of a packet: inline content kept in the
// database, or a path in the repository with the hash its publisher gave.
type Artifact struct {
	ID       string `json:"id"`
	PacketID string `json:"packet_id"`
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	// Path is relative to the repository folder, slash-separated and
	// cleaned. Empty for inline content.
	Path string `json:"path,omitempty"`
	// Content is the inline content; nil for a path.
	Content *string `json:"content,omitempty"`
	// SHA256 is lowercase hex: computed for inline content, as given for a
	// path.
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	SessionID string    `json:"session_id"`
	LeaseID   string    `json:"lease_id"`
	CreatedAt time.Time `json:"created_at"`
}

// ArtifactSpec describes an artifact to publish: Content, or Path and
// SHA256 (and Size, as declared).
type ArtifactSpec struct {
	Name    string
	Kind    string
	Content *string
	Path    string
	SHA256  string
	Size    int64
}

// PublishArtifact records an artifact of a leased packet. Publishing a name
// again replaces the earlier artifact of that name (a new id, the old one
// gone). Inline content is at most MaxInlineArtifact bytes of UTF-8 (it
// travels as a JSON string) and is hashed here.
//
// A path is taken relative to repoPath ("" means the registered
// repository's folder), cleaned, and refused with write_scope_violation when
// it is absolute, leaves the repository, matches none of the packet's
// write-scope globs, or leads outside the repository through a symbolic
// link. The store never reads the file's bytes: the hash and size are the
// publisher's word, recorded for whoever reads the file later. The symbolic
// link check looks at the file system as it is now; nothing stops a link
// made afterwards.
//
// Denials: not_found, lease_lost, invalid_argument, write_scope_violation.
func (tx *Tx) PublishArtifact(pktID, sessionID, leaseID string, a ArtifactSpec, repoPath string) (Artifact, error) {
	p, _, err := tx.leased(pktID, sessionID, leaseID)
	if err != nil {
		return Artifact{}, err
	}
	if err := checkWorkText("artifact name", a.Name, maxArtifactName, true); err != nil {
		return Artifact{}, err
	}
	if err := checkWorkText("artifact kind", a.Kind, maxArtifactKind, false); err != nil {
		return Artifact{}, err
	}
	art := Artifact{
		ID: NewID("art"), PacketID: p.ID, Name: a.Name, Kind: a.Kind,
		SessionID: sessionID, LeaseID: leaseID, CreatedAt: tx.now,
	}
	if art.Kind == "" {
		if i := slices.IndexFunc(p.ExpectedArtifacts, func(e ExpectedArtifact) bool { return e.Name == a.Name }); i >= 0 {
			art.Kind = p.ExpectedArtifacts[i].Kind
		}
	}
	switch {
	case a.Content != nil && a.Path != "":
		return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: give inline content or a path, not both", a.Name)
	case a.Content != nil:
		content := *a.Content
		if len(content) > MaxInlineArtifact {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: inline content is %d bytes, more than %d (publish a path instead)", a.Name, len(content), MaxInlineArtifact)
		}
		if !utf8.ValidString(content) {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: inline content is not valid UTF-8", a.Name)
		}
		sum := sha256.Sum256([]byte(content))
		art.SHA256 = hex.EncodeToString(sum[:])
		if a.SHA256 != "" && !strings.EqualFold(a.SHA256, art.SHA256) {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 given does not match the content", a.Name)
		}
		art.Content = &content
		art.Size = int64(len(content))
	case a.Path != "":
		if len(a.SHA256) != 64 {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
		}
		if _, err := hex.DecodeString(a.SHA256); err != nil {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
		}
		if a.Size < 0 {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: negative size", a.Name)
		}
		if repoPath == "" {
			repo, err := tx.Repository(p.RepositoryID)
			if err != nil {
				return Artifact{}, err
			}
			repoPath = repo.Path
		}
		rel, err := checkArtifactPath(repoPath, a.Path, p.WriteScope)
		if err != nil {
			return Artifact{}, err
		}
		art.Path = rel
		art.SHA256 = strings.ToLower(a.SHA256)
		art.Size = a.Size
	default:
		return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: give inline content or a path", a.Name)
	}
	v, err := json.Marshal(&art)
	if err != nil {
		return Artifact{}, fmt.Errorf("encode artifact: %w", err)
	}
	if err := tx.tx.Bucket(bucketArtifacts).Put(artifactKey(p.ID, art.Name), v); err != nil {
		return Artifact{}, fmt.Errorf("store artifact %s: %w", art.ID, err)
	}
	return art, nil
}

// Artifacts lists a packet's artifacts by name, inline content included.
// Denial: not_found.
func (tx *Tx) Artifacts(pktID string) ([]Artifact, error) {
	if tx.tx.Bucket(bucketPackets).Get([]byte(pktID)) == nil {
		return nil, Deny(CodeNotFound, "no packet %q", pktID)
	}
	prefix := artifactKey(pktID, "")
	out := []Artifact{}
	c := tx.tx.Bucket(bucketArtifacts).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var a Artifact
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, fmt.Errorf("decode artifact %q: %w", k, err)
		}
		out = append(out, a)
	}
	return out, nil
}
