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
// database, or a file in the repository with the size and hash it had when
// it was published.
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
	// SHA256 is lowercase hex, computed here: from the inline content, or
	// from the file when it was published (VerifyArtifactFile).
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	SessionID string    `json:"session_id"`
	LeaseID   string    `json:"lease_id"`
	CreatedAt time.Time `json:"created_at"`
}

// ArtifactSpec describes an artifact to publish: Content, or Path with
// the SHA256 and Size its publisher claims for the file (checked against the
// file by VerifyArtifactFile, never taken on trust).
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
// travels as a JSON string) and is hashed here; file is nil for it.
//
// A path artifact is recorded from file, which VerifyArtifactFile made
// before this transaction: the file is not read here, since the write
// transaction is shared with other calls. What may have changed since is
// checked again without the disk: file was checked for this packet and
// for the folder its repository still has, and the path is still inside
// the packet's write scope. The path, size and sha256 of a must be file's.
//
// Denials: not_found, lease_lost, invalid_argument, write_scope_violation,
// artifact_mismatch.
func (tx *Tx) PublishArtifact(pktID, sessionID, leaseID string, a ArtifactSpec, file *VerifiedFile) (Artifact, error) {
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
			return Artifact{}, Deny(CodeArtifactMismatch, "artifact %q: sha256 given does not match the content", a.Name)
		}
		art.Content = &content
		art.Size = int64(len(content))
	case a.Path != "":
		if err := checkPathClaim(a); err != nil {
			return Artifact{}, err
		}
		rel, err := cleanArtifactPath(a.Path, p.WriteScope)
		if err != nil {
			return Artifact{}, err
		}
		if err := tx.checkVerifiedFile(p, rel, a, file); err != nil {
			return Artifact{}, err
		}
		art.Path = file.path
		art.SHA256 = file.sha256
		art.Size = file.size
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

// checkVerifiedFile holds file, made before the transaction, to the packet
// as the transaction reads it, and to the claims in a (path rel, cleaned).
// A file checked for something else is the caller's bug, not the agent's:
// an error, not a denial. The packet's repository or its folder having
// changed in between is the agent's to retry.
func (tx *Tx) checkVerifiedFile(p *Packet, rel string, a ArtifactSpec, file *VerifiedFile) error {
	if file == nil || file.packetID != p.ID || file.path != rel || file.size != a.Size || !strings.EqualFold(file.sha256, a.SHA256) {
		return fmt.Errorf("artifact %q: path %q of packet %s was not checked against its file (VerifyArtifactFile)", a.Name, rel, p.ID)
	}
	repo, err := tx.Repository(p.RepositoryID)
	if err != nil {
		return err
	}
	if file.repositoryID != p.RepositoryID || file.repoPath != repo.Path {
		return Deny(CodeArtifactMismatch, "artifact path %q was checked in another repository folder than packet %s's: publish again", rel, p.ID)
	}
	return nil
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
