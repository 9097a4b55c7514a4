// Package keyring keeps small secrets, such as the client token, outside the
// database, so that a copied state.db never carries them.
//
// System is the OS keyring (the Secret Service on Linux, Keychain on macOS,
// Credential Manager on Windows). It can hang or be missing, so every call has
// a hard timeout and a failed keyring reports itself unavailable; the caller
// then falls back to Memory for this run, or to File when the user opts in.
package keyring

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Keyring keeps small secrets outside the database.
//
// Get and Delete return an error wrapping ErrNotFound when no secret is stored
// for service and user. An error wrapping ErrUnavailable means the store could
// not be used at all, and the caller should fall back to another Keyring.
// Errors never contain the secret.
type Keyring interface {
	Get(ctx context.Context, service, user string) (string, error)
	Set(ctx context.Context, service, user, secret string) error
	Delete(ctx context.Context, service, user string) error
}

var (
	// ErrNotFound reports that no secret is stored for the service and user.
	ErrNotFound = errors.New("secret not found")

	// ErrUnavailable reports that the keyring failed or did not answer in time.
	ErrUnavailable = errors.New("keyring unavailable")
)

// entry names one secret.
type entry struct{ service, user string }

func (e entry) String() string { return e.service + "/" + e.user }

// Memory is a Keyring that lives in this process only. It serves the
// "this run only" fallback and tests. The zero value is an empty keyring.
// It never blocks, so it ignores its contexts.
type Memory struct {
	mu      sync.Mutex
	secrets map[entry]string
}

var _ Keyring = (*Memory)(nil)

// NewMemory returns an empty in-memory keyring, safe for concurrent use.
func NewMemory() *Memory {
	return new(Memory)
}

// Get returns the secret stored for service and user.
func (m *Memory) Get(_ context.Context, service, user string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := entry{service, user}
	s, ok := m.secrets[e]
	if !ok {
		return "", fmt.Errorf("keyring get %v: %w", e, ErrNotFound)
	}
	return s, nil
}

// Set stores secret for service and user, replacing any earlier one.
func (m *Memory) Set(_ context.Context, service, user, secret string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.secrets == nil {
		m.secrets = make(map[entry]string)
	}
	m.secrets[entry{service, user}] = secret
	return nil
}

// Delete removes the secret stored for service and user.
func (m *Memory) Delete(_ context.Context, service, user string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := entry{service, user}
	if _, ok := m.secrets[e]; !ok {
		return fmt.Errorf("keyring delete %v: %w", e, ErrNotFound)
	}
	delete(m.secrets, e)
	return nil
}
