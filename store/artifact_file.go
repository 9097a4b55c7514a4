package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Path artifacts are checked against the file they name, and the check
// reads the disk. It must not run inside a write transaction: group commit
// shares that transaction with other calls, and a slow disk or a large file
// would hold every one of them. So a path artifact is published in two
// phases:
//
//  1. before the write transaction, ArtifactTarget (in a read transaction)
//     gives the packet's repository folder and write scope, and
//     VerifyArtifactFile (in no transaction) checks the path and reads and
//     hashes the file into a *VerifiedFile;
//  2. in the write transaction, PublishArtifact takes the VerifiedFile,
//     checks again what may have changed in between without touching the
//     disk, and records it.
//
// This file is the only place the store looks at a repository's files.
// Nothing here that reads the disk runs inside a transaction; ArtifactTarget
// reads only the database, in a read transaction.

// MaxArtifactFile bounds a path artifact's size: the most
// VerifyArtifactFile reads and hashes for one publish. It is large enough
// for a build output or a long log, and small enough to hash well within
// the time a call may take.
const MaxArtifactFile = 256 << 20

// artifactReadChunk is how much is read between two looks at the context.
const artifactReadChunk = 256 << 10

// ArtifactTarget is what checking a path artifact needs of its packet.
type ArtifactTarget struct {
	PacketID     string
	RepositoryID string
	// RepoPath is the repository's folder, as registered.
	RepoPath string
	// Folder is where the publishing agent works in place of RepoPath:
	// the same folder in its worktree. "" is RepoPath itself (an agent
	// working in the repository's folder). A path artifact is looked up
	// there: in the person's checkout it would be another file, and its
	// size would tell the agent of the person's own work.
	Folder     string
	WriteScope []string
}

// folder is where t's path artifacts are.
func (t ArtifactTarget) folder() string {
	if t.Folder != "" {
		return t.Folder
	}
	return t.RepoPath
}

// ArtifactTarget reads what VerifyArtifactFile needs to check a path
// artifact of a leased packet. The lease is checked here as in
// PublishArtifact, so that only the packet's holder has a file read at all.
// p is the packet as read in this transaction. Denials: lease_lost,
// repo_not_registered.
func (tx *Tx) ArtifactTarget(p Packet, sessionID, leaseID string) (ArtifactTarget, error) {
	if err := tx.checkLease(&p, sessionID, leaseID); err != nil {
		return ArtifactTarget{}, err
	}
	repo, err := tx.Repository(p.RepositoryID)
	if err != nil {
		return ArtifactTarget{}, err
	}
	return ArtifactTarget{PacketID: p.ID, RepositoryID: p.RepositoryID, RepoPath: repo.Path, WriteScope: slices.Clone(p.WriteScope)}, nil
}

// VerifiedFile is a path artifact's file as VerifyArtifactFile found it:
// inside the repository and the write scope, a regular file of Size bytes
// whose SHA-256 is SHA256, as its publisher claimed. Only
// VerifyArtifactFile makes one, and nothing changes it afterwards: its
// fields are unexported, and tie it to the packet and the repository
// folder it was checked against, which PublishArtifact compares.
type VerifiedFile struct {
	path, sha256                     string
	size                             int64
	packetID, repositoryID, repoPath string
}

// Path is relative to the repository folder, slash-separated and cleaned.
func (f *VerifiedFile) Path() string { return f.path }

// Size is the file's size in bytes.
func (f *VerifiedFile) Size() int64 { return f.size }

// SHA256 is the file's SHA-256, lowercase hex.
func (f *VerifiedFile) SHA256() string { return f.sha256 }

// VerifyArtifactFile checks the path artifact a describes against the file
// system: its path must be relative, inside the repository folder and the
// target's write scope, and lead nowhere outside the repository through a
// symbolic link; the file must exist, be a regular file, and have the size
// and SHA-256 a claims. It reads the whole file (at most MaxArtifactFile
// bytes), so it runs outside any transaction; ctx bounds how long it may
// read. A file changed after it was read is not noticed: the record says
// what the file was when it was published.
//
// Denials: invalid_argument (no path, content as well, a sha256 that is not
// 64 hex characters, a size below 0 or above MaxArtifactFile),
// write_scope_violation, artifact_mismatch (the file does not exist, is not
// a regular file, cannot be read, or its size or SHA-256 is not the one
// claimed). A context that ends first gives its error, wrapped.
func VerifyArtifactFile(ctx context.Context, t ArtifactTarget, a ArtifactSpec) (*VerifiedFile, error) {
	if a.Path == "" {
		return nil, Deny(CodeInvalidArgument, "artifact %q: no path to check", a.Name)
	}
	if err := checkPathClaim(a); err != nil {
		return nil, err
	}
	rel, err := cleanArtifactPath(a.Path, t.WriteScope)
	if err != nil {
		return nil, err
	}
	root, real, err := resolveArtifactPath(t.folder(), rel)
	if err != nil {
		return nil, err
	}
	sum, err := hashArtifactFile(ctx, root, real, rel, a.Size)
	if err != nil {
		return nil, err
	}
	if claimed := strings.ToLower(a.SHA256); sum != claimed {
		return nil, Deny(CodeArtifactMismatch, "artifact path %q: the file's sha256 is %s, not %s as claimed", rel, sum, claimed)
	}
	return &VerifiedFile{path: rel, size: a.Size, sha256: sum, packetID: t.PacketID, repositoryID: t.RepositoryID, repoPath: t.RepoPath}, nil
}

// checkPathClaim refuses a path artifact whose claims cannot be right
// whatever the file holds, before anything is read.
func checkPathClaim(a ArtifactSpec) error {
	if a.Content != nil {
		return Deny(CodeInvalidArgument, "artifact %q: give inline content or a path, not both", a.Name)
	}
	if len(a.SHA256) != 64 {
		return Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
	}
	if _, err := hex.DecodeString(a.SHA256); err != nil {
		return Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
	}
	if a.Size < 0 {
		return Deny(CodeInvalidArgument, "artifact %q: negative size", a.Name)
	}
	if a.Size > MaxArtifactFile {
		return Deny(CodeInvalidArgument, "artifact %q: size %d is over the %d bytes a path artifact may have", a.Name, a.Size, int64(MaxArtifactFile))
	}
	return nil
}

// hashArtifactFile opens real, a path relative to the folder root with its
// links resolved (resolveArtifactPath), and returns its SHA-256 in lowercase
// hex once it has seen a regular file of exactly size bytes. rel is the
// path as the agent gave it, for the denials. The size is compared before
// the first byte is read, so a file larger than claimed (and so than
// MaxArtifactFile) is never read at all.
func hashArtifactFile(ctx context.Context, root, real, rel string, size int64) (string, error) {
	// os.Root opens each component inside the folder and follows no link
	// out of it: a link swapped in after resolveArtifactPath looked is
	// refused, not followed. It refuses absolute links even when they lead
	// inside, which is why it is given the resolved path.
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", Deny(CodeArtifactMismatch, "artifact path %q: the repository folder cannot be opened: %v", rel, withoutPath(err))
	}
	defer r.Close()
	// O_NONBLOCK: opening a named pipe must not wait for a writer that
	// may never come. A regular file reads the same with it.
	f, err := r.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", Deny(CodeArtifactMismatch, "artifact path %q does not exist", rel)
	case errors.Is(err, fs.ErrPermission):
		return "", Deny(CodeArtifactMismatch, "artifact path %q cannot be read: %v", rel, withoutPath(err))
	case err != nil:
		return "", Deny(CodeWriteScopeViolation, "artifact path %q cannot be opened inside the repository: %v", rel, withoutPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", Deny(CodeArtifactMismatch, "artifact path %q cannot be read: %v", rel, withoutPath(err))
	case fi.IsDir():
		return "", Deny(CodeArtifactMismatch, "artifact path %q is a folder, not a file", rel)
	case !fi.Mode().IsRegular():
		return "", Deny(CodeArtifactMismatch, "artifact path %q is not a regular file", rel)
	case fi.Size() != size:
		return "", Deny(CodeArtifactMismatch, "artifact path %q is %d bytes, not %d as claimed", rel, fi.Size(), size)
	}
	// Read one byte past the size, so a file that grew since Stat shows;
	// look at the context between chunks, so a slow disk does not keep the
	// caller past its deadline.
	h := sha256.New()
	lr := io.LimitReader(f, size+1)
	buf := make([]byte, min(artifactReadChunk, size+1))
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("hash artifact path %q: %w", rel, err)
		}
		k, err := lr.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", Deny(CodeArtifactMismatch, "artifact path %q cannot be read: %v", rel, withoutPath(err))
		}
	}
	if n != size {
		return "", Deny(CodeArtifactMismatch, "artifact path %q changed while it was read: %d bytes, not %d", rel, n, size)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// resolveArtifactPath resolves the links of rel under repoPath on the real
// file system and refuses it when it lands outside the resolved repository
// folder. It returns that folder (root) and the path inside it with every
// link resolved (real, native separators), for hashArtifactFile to open. A
// path that does not exist is judged by its nearest existing parent, so a
// path under a link that leads out is refused as such rather than as
// missing. Lstat finds that parent, so a dangling link counts as existing:
// its target cannot be resolved and it is refused rather than let through.
func resolveArtifactPath(repoPath, rel string) (root, real string, err error) {
	root, err = filepath.EvalSymlinks(repoPath)
	if err != nil {
		return "", "", Deny(CodeArtifactMismatch, "artifact path %q: the repository folder cannot be resolved: %v", rel, withoutPath(err))
	}
	p := filepath.Join(repoPath, filepath.FromSlash(rel))
	var missing []string // the components under p that do not exist, innermost first
	for {
		_, err := os.Lstat(p)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", Deny(CodeWriteScopeViolation, "artifact path %q cannot be checked: %v", rel, withoutPath(err))
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		missing = append(missing, filepath.Base(p))
		p = parent
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", Deny(CodeWriteScopeViolation, "artifact path %q goes through a link that does not resolve: %v", rel, withoutPath(err))
	}
	r, err := filepath.Rel(root, resolved)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", "", Deny(CodeWriteScopeViolation, "artifact path %q leads outside the repository through a symbolic link", rel)
	}
	slices.Reverse(missing)
	return root, filepath.Join(append([]string{r}, missing...)...), nil
}

// withoutPath drops the absolute path an *fs.PathError carries, so a
// denial tells the agent what went wrong without the host's folder layout.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
