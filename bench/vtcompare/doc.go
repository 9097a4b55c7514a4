// Package vtcompare measures supervisor/vt against the other pure-Go
// terminal emulators we considered (github.com/charmbracelet/x/vt and
// github.com/hinshun/vt10x) on the same bytes, and checks that wide
// characters land in the same columns as in x/vt. It is a module of its
// own so that those emulators never become dependencies of Switchboard.
package vtcompare
