package store

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-dev/switchboard/profile"
)

// bucketProfiles holds the agent profiles a person added or edited:
//
//	profiles/
//	  <profile id>       -> Profile JSON
//
// The built-in profiles live in the supervisor's code; a stored profile with
// a built-in's id overrides it, and deleting the override brings the
// built-in back.
var bucketProfiles = []byte("profiles")

// Profiles returns the stored profiles, ordered by id.
func (tx *Tx) Profiles() ([]profile.Profile, error) {
	var out []profile.Profile
	err := tx.tx.Bucket(bucketProfiles).ForEach(func(k, v []byte) error {
		var p profile.Profile
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("decode profile %s: %w", k, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Profile returns the stored profile id; ok is false when none is stored.
func (tx *Tx) Profile(id string) (p profile.Profile, ok bool, err error) {
	v := tx.tx.Bucket(bucketProfiles).Get([]byte(id))
	if v == nil {
		return profile.Profile{}, false, nil
	}
	if err := json.Unmarshal(v, &p); err != nil {
		return profile.Profile{}, false, fmt.Errorf("decode profile %s: %w", id, err)
	}
	return p, true, nil
}

// PutProfile stores p, adding it or replacing the one with its id.
func (tx *Tx) PutProfile(p profile.Profile) error {
	if err := p.Validate(); err != nil {
		return Deny(CodeInvalidArgument, "%v", err)
	}
	v, err := json.Marshal(&p)
	if err != nil {
		return fmt.Errorf("encode profile %s: %w", p.ID, err)
	}
	if err := tx.tx.Bucket(bucketProfiles).Put([]byte(p.ID), v); err != nil {
		return fmt.Errorf("store profile %s: %w", p.ID, err)
	}
	return nil
}

// DeleteProfile removes the stored profile id; not_found when none is.
func (tx *Tx) DeleteProfile(id string) error {
	b := tx.tx.Bucket(bucketProfiles)
	if b.Get([]byte(id)) == nil {
		return Deny(CodeNotFound, "no stored profile %s", id)
	}
	if err := b.Delete([]byte(id)); err != nil {
		return fmt.Errorf("delete profile %s: %w", id, err)
	}
	return nil
}
