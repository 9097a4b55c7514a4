package store

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^repo_[0-9a-f]{20}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewID("repo")
		if !re.MatchString(id) {
			t.Fatalf("NewID = %q", id)
		}
		if seen[id] {
			t.Fatal("NewID repeated")
		}
		seen[id] = true
	}
}

func TestRegisterRepository(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	type reg struct {
		name, path  string
		wantCode    Code
		wantCreated bool
		wantName    string
		wantPath    string
		sameAs      int // index of an earlier step whose id must come back; -1 none
	}
	steps := []reg{
		{name: "", path: "relative/dir", wantCode: CodeInvalidArgument, sameAs: -1},
		{name: "x", path: "", wantCode: CodeInvalidArgument, sameAs: -1},
		{name: "x", path: "./here", wantCode: CodeInvalidArgument, sameAs: -1},
		{name: "Alpha", path: "/src/alpha", wantCreated: true, wantName: "Alpha", wantPath: "/src/alpha", sameAs: -1},      // 3
		{name: "", path: "/src/beta", wantCreated: true, wantName: "beta", wantPath: "/src/beta", sameAs: -1},              // 4
		{name: "Alpha", path: "/src/alpha", wantName: "Alpha", wantPath: "/src/alpha", sameAs: 3},                          // same path
		{name: "Renamed", path: "/src/alpha", wantName: "Alpha", wantPath: "/src/alpha", sameAs: 3},                        // name ignored
		{name: "", path: "/src/alpha/", wantName: "Alpha", wantPath: "/src/alpha", sameAs: 3},                              // trailing slash
		{name: "", path: "/src/x/../alpha", wantName: "Alpha", wantPath: "/src/alpha", sameAs: 3},                          // cleaned
		{name: "", path: "/src//beta/.", wantName: "beta", wantPath: "/src/beta", sameAs: 4},                               // cleaned
		{name: "", path: "/src/alpha2", wantCreated: true, wantName: "alpha2", wantPath: "/src/alpha2", sameAs: -1},        // prefix is not the same path
		{name: "Gamma", path: "/other/alpha", wantCreated: true, wantName: "Gamma", wantPath: "/other/alpha", sameAs: -1},  // same base, other path
		{name: "", path: "/", wantCreated: true, wantName: "/", wantPath: "/", sameAs: -1},                                 // root: base is "/"
		{name: "", path: "/src/with space/é", wantCreated: true, wantName: "é", wantPath: "/src/with space/é", sameAs: -1}, // odd characters
	}
	ids := make([]string, len(steps))
	for i, s := range steps {
		var r Repository
		var created bool
		err := db.Update(context.Background(), func(tx *Tx) error {
			var err error
			r, created, err = tx.RegisterRepository(s.name, s.path)
			return err
		})
		if got := CodeOf(err); got != s.wantCode {
			t.Fatalf("step %d: RegisterRepository(%q, %q) code %q (%v), want %q", i, s.name, s.path, got, err, s.wantCode)
		}
		if err != nil {
			continue
		}
		ids[i] = r.ID
		if created != s.wantCreated || r.Name != s.wantName || r.Path != s.wantPath {
			t.Errorf("step %d: got %+v created=%v; want name %q path %q created=%v", i, r, created, s.wantName, s.wantPath, s.wantCreated)
		}
		if s.sameAs >= 0 && r.ID != ids[s.sameAs] {
			t.Errorf("step %d: id %s, want the existing %s", i, r.ID, ids[s.sameAs])
		}
		if !regexp.MustCompile(`^repo_[0-9a-f]{20}$`).MatchString(r.ID) {
			t.Errorf("step %d: id %q", i, r.ID)
		}
		if s.wantCreated && !r.CreatedAt.Equal(clock.Now()) {
			t.Errorf("step %d: CreatedAt %v, want %v", i, r.CreatedAt, clock.Now())
		}
		clock.Add(time.Second)
	}

	wantN := 0
	for _, s := range steps {
		if s.wantCreated {
			wantN++
		}
	}
	mustView(t, db, func(tx *Tx) error {
		repos, err := tx.Repositories()
		if err != nil {
			return err
		}
		if len(repos) != wantN {
			t.Fatalf("%d repositories, want %d: %+v", len(repos), wantN, repos)
		}
		for i := 1; i < len(repos); i++ {
			if repos[i-1].ID >= repos[i].ID {
				t.Errorf("Repositories not in id order")
			}
		}
		for _, r := range repos {
			got, err := tx.Repository(r.ID)
			if err != nil || got != r {
				t.Errorf("Repository(%s) = %+v, %v; want %+v", r.ID, got, err, r)
			}
			if !tx.RepositoryExists(r.ID) {
				t.Errorf("RepositoryExists(%s) = false", r.ID)
			}
		}
		for _, id := range []string{"repo_00000000000000000000", "", "alpha", "/src/alpha"} {
			if _, err := tx.Repository(id); CodeOf(err) != CodeRepoNotRegistered {
				t.Errorf("Repository(%q) = %v, want repo_not_registered", id, err)
			}
			if tx.RepositoryExists(id) {
				t.Errorf("RepositoryExists(%q) = true", id)
			}
		}
		return nil
	})
}

func TestRepositoriesEmpty(t *testing.T) {
	db := openTestDB(t, Options{})
	mustView(t, db, func(tx *Tx) error {
		repos, err := tx.Repositories()
		if err != nil || len(repos) != 0 {
			t.Errorf("Repositories on empty db = %v, %v", repos, err)
		}
		return nil
	})
}

func TestCounts(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	want := Counts{}
	check := func(step string) {
		t.Helper()
		mustView(t, db, func(tx *Tx) error {
			got, err := tx.Counts(Scope{All: true})
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("%s: Counts = %+v, want %+v", step, got, want)
			}
			return nil
		})
	}
	check("empty")

	soon := clock.Now().Add(time.Minute)
	var revoke string
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range 5 {
			spec := TokenSpec{Label: "t"}
			if i == 3 {
				spec.ExpiresAt = &soon
			}
			tok, _, err := tx.CreateToken(spec)
			if err != nil {
				return err
			}
			if i == 4 {
				revoke = tok.KeyID
			}
		}
		return nil
	})
	want.Tokens, want.LiveTokens = 5, 5
	check("tokens")

	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.RevokeToken(revoke); return err })
	want.LiveTokens = 4
	check("revoked")
	clock.Add(time.Hour)
	want.LiveTokens = 3
	check("expired")

	mustUpdate(t, db, func(tx *Tx) error {
		for _, p := range []string{"/a", "/b", "/a", "/c"} {
			if _, _, err := tx.RegisterRepository("", p); err != nil {
				return err
			}
		}
		return nil
	})
	want.Repositories = 3
	check("repositories")

	// Enough audit records to spill out of an inline bucket onto pages.
	mustUpdate(t, db, func(tx *Tx) error {
		for range 500 {
			if err := tx.AppendAudit(&AuditRecord{Transport: "gui", Method: "status", Outcome: "ok"}); err != nil {
				return err
			}
		}
		return nil
	})
	want.AuditRecords = 500
	check("audit")

	// A caller scoped to some repositories learns how many of them exist,
	// and nothing that belongs to no repository.
	mustView(t, db, func(tx *Tx) error {
		repos, err := tx.Repositories()
		if err != nil {
			return err
		}
		scope := Scope{Repositories: []string{repos[0].ID, "repo_gone"}}
		got, err := tx.Counts(scope)
		if want := (Counts{Repositories: 1, Scoped: true}); err != nil || got != want {
			t.Errorf("Counts(%+v) = %+v, %v; want %+v", scope, got, err, want)
		}
		return nil
	})
}

// The registry runs a method and its audit append in one Update: Counts
// must see what that same transaction already wrote.
func TestCountsSeeOwnTransaction(t *testing.T) {
	db := openTestDB(t, Options{})
	mustUpdate(t, db, func(tx *Tx) error {
		for i, p := range []string{"/a", "/b"} {
			if _, _, err := tx.RegisterRepository("", p); err != nil {
				return err
			}
			if _, _, err := tx.CreateToken(TokenSpec{}); err != nil {
				return err
			}
			if err := tx.AppendAudit(&AuditRecord{Method: "m", Outcome: "ok"}); err != nil {
				return err
			}
			got, err := tx.Counts(Scope{All: true})
			if err != nil {
				return err
			}
			want := Counts{Tokens: i + 1, LiveTokens: i + 1, Repositories: i + 1, AuditRecords: i + 1}
			if got != want {
				t.Errorf("inside Update after %d writes: Counts = %+v, want %+v", i+1, got, want)
			}
		}
		return nil
	})
}

func TestConfigureRepository(t *testing.T) {
	db := openTestDB(t, Options{})
	var repo Repository
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		repo, _, err = tx.RegisterRepository("", "/src/app")
		return err
	})
	for _, tc := range []struct {
		name string
		s    RepositorySettings
		want Code
	}{
		{"default", RepositorySettings{}, ""},
		{"worktree on a base", RepositorySettings{Isolation: IsolationWorktree, Base: "release/1.2"}, ""},
		{"none", RepositorySettings{Isolation: IsolationNone}, ""},
		{"unknown isolation", RepositorySettings{Isolation: "container"}, CodeInvalidArgument},
		{"base that is an option", RepositorySettings{Base: "--upload-pack=x"}, CodeInvalidArgument},
		{"base with a space", RepositorySettings{Base: "a b"}, CodeInvalidArgument},
		{"base with a range", RepositorySettings{Base: "main~1"}, CodeInvalidArgument},
		{"base too long", RepositorySettings{Base: strings.Repeat("b", 201)}, CodeInvalidArgument},
		{"setup", RepositorySettings{Setup: "npm ci && cp .env.example .env"}, ""},
		{"setup at the limit", RepositorySettings{Setup: strings.Repeat("s", MaxSetupCommand)}, ""},
		{"setup too long", RepositorySettings{Setup: strings.Repeat("s", MaxSetupCommand+1)}, CodeInvalidArgument},
		{"setup blank", RepositorySettings{Setup: "  \t"}, CodeInvalidArgument},
		{"setup of two lines", RepositorySettings{Setup: "make\nrm -rf ~"}, CodeInvalidArgument},
		{"setup with an escape", RepositorySettings{Setup: "make \x1b[2J"}, CodeInvalidArgument},
		{"setup not UTF-8", RepositorySettings{Setup: "make \xff"}, CodeInvalidArgument},
		{"each landing mode", RepositorySettings{Landing: LandingRebase}, ""},
		{"pull requests to a remote", RepositorySettings{Landing: LandingPullRequest, Remote: "upstream"}, ""},
		{"a remote with a slash", RepositorySettings{Remote: "team/fork"}, ""},
		{"squash", RepositorySettings{Landing: LandingSquash}, ""},
		{"unknown landing", RepositorySettings{Landing: "fast-forward"}, CodeInvalidArgument},
		{"remote that is an option", RepositorySettings{Remote: "--receive-pack=x"}, CodeInvalidArgument},
		{"remote with a space", RepositorySettings{Remote: "my remote"}, CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := db.Update(context.Background(), func(tx *Tx) error {
				_, err := tx.ConfigureRepository(repo.ID, tc.s)
				return err
			})
			if CodeOf(err) != tc.want {
				t.Fatalf("ConfigureRepository(%+v): %v, want %q", tc.s, err, tc.want)
			}
			if tc.want != "" {
				return
			}
			mustView(t, db, func(tx *Tx) error {
				got, err := tx.Repository(repo.ID)
				if err != nil || got.RepositorySettings != tc.s || got.Path != repo.Path {
					t.Errorf("after configure: %+v, %v", got, err)
				}
				return nil
			})
		})
	}
	err := db.Update(context.Background(), func(tx *Tx) error { _, err := tx.ConfigureRepository("repo_nope", RepositorySettings{}); return err })
	if CodeOf(err) != CodeRepoNotRegistered {
		t.Errorf("configure an unknown repository: %v", err)
	}
}
