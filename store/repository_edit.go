package store

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// maxRepoName bounds a repository's name.
const maxRepoName = 100

// checkRepoName refuses a name a person could not read in a list: empty,
// too long, or holding a control character.
func checkRepoName(name string) error {
	if strings.TrimSpace(name) == "" {
		return Deny(CodeInvalidArgument, "a repository's name cannot be empty")
	}
	if len(name) > maxRepoName {
		return Deny(CodeInvalidArgument, "a repository's name is at most %d bytes", maxRepoName)
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return Deny(CodeInvalidArgument, "a repository's name holds no control characters")
	}
	return nil
}

// RenameRepository gives repository id another name. In team mode the name
// is how instances know the repository, so it must stay unique.
func (tx *Tx) RenameRepository(id, name string) (Repository, error) {
	name = strings.TrimSpace(name)
	if err := checkRepoName(name); err != nil {
		return Repository{}, err
	}
	repos, err := tx.Repositories()
	if err != nil {
		return Repository{}, err
	}
	i := slices.IndexFunc(repos, func(o Repository) bool { return o.ID == id })
	if i < 0 {
		return Repository{}, Deny(CodeRepoNotRegistered, "repository %s is not registered", id)
	}
	for _, o := range repos {
		if o.ID != id && o.Name == name {
			return Repository{}, Deny(CodeInvalidArgument, "another repository is named %q already (%s)", name, o.ID)
		}
	}
	r := repos[i]
	r.Name = name
	path := r.Path
	if err := tx.putRepository(r); err != nil {
		return Repository{}, err
	}
	r.Path = path
	return r, nil
}

// RemoveRepository makes Switchboard forget repository id: with bbolt its
// record goes; in team mode only this instance's folder for it does, and
// the other instances keep theirs. The folder itself is never touched.
//
// It is refused while anything of the person's work could still hang on
// it: a live session there, or a packet not yet finished (queued, leased,
// in review, or done with changes that have not landed). Ended packets
// and sessions stay in the records and the audit, under its id.
func (tx *Tx) RemoveRepository(id string) (Repository, error) {
	r, err := tx.Repository(id)
	if err != nil {
		return Repository{}, err
	}
	live, err := tx.liveSessions()
	if err != nil {
		return Repository{}, err
	}
	for _, s := range live {
		if s.RepositoryID == id && (tx.db.instance == "" || s.Instance == tx.db.instance) {
			return Repository{}, Deny(CodeInvalidState, "session %s still runs in %s: stop it first", s.ID, r.Name)
		}
	}
	open, err := tx.openPackets(id)
	if err != nil {
		return Repository{}, err
	}
	if len(open) > 0 {
		return Repository{}, Deny(CodeInvalidState, "%s has %d packets not finished (%s first): finish, land or cancel them first",
			r.Name, len(open), open[0])
	}
	if tx.db.instance != "" {
		if err := tx.tx.Bucket(bucketRepoPaths).Delete(repoPathKey(tx.db.instance, id)); err != nil {
			return Repository{}, fmt.Errorf("forget repository %s's folder: %w", id, err)
		}
		return r, nil
	}
	if err := tx.tx.Bucket(bucketRepositories).Delete([]byte(id)); err != nil {
		return Repository{}, fmt.Errorf("remove repository %s: %w", id, err)
	}
	return r, nil
}

// openPackets lists the ids of repository id's packets that are not
// finished: not yet done, failed or cancelled, or done with changes that
// have not landed.
func (tx *Tx) openPackets(id string) ([]string, error) {
	var open []string
	f := PacketFilter{RepositoryID: id, Limit: 1000}
	for {
		ps, err := tx.Packets(f)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			switch {
			case p.State == PacketFailed, p.State == PacketCancelled:
			case p.State == PacketDone && (p.Changes == nil || p.Landed != nil):
			default:
				open = append(open, p.ID)
			}
		}
		if len(ps) < f.Limit {
			return open, nil
		}
		f.After = ps[len(ps)-1].ID
	}
}
