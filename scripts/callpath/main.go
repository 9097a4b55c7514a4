// Command callpath measures the call path of one work_complete: which
// functions of this module run, in which files, from the MCP HTTP front to
// the store. Run it from the repository's top:
//
//	go run ./scripts/callpath [-via http|invoke|operator] [-max-functions N] [-max-files N]
//
// It builds mcphttp's tests with coverage counters on every package of the
// module, runs TestCallPath (mcphttp/callpath_test.go) twice, once without
// and once with the measured completion, and lists the functions whose
// blocks ran more often in the second run. Both runs do the same work up to
// that completion, so the difference is the completion's own path. -via
// measures parts of the path: "invoke" hands the agent's call to
// Registry.Invoke in process (no HTTP front, no authentication of the
// bearer token), "operator" makes it the person's (no token, nothing
// authorized); "http", the default, is the whole path. With -max-functions
// or -max-files it fails (status 2; go run reports 1) when the path is longer.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	via := flag.String("via", "http", "http (the whole path), invoke (from Registry.Invoke) or operator (the person's call from Registry.Invoke)")
	maxFuncs := flag.Int("max-functions", 0, "exit with status 2 past this many functions (0: no bound)")
	maxFiles := flag.Int("max-files", 0, "exit with status 2 past this many files (0: no bound)")
	flag.Parse()
	funcs, files, err := run(*via)
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpath:", err)
		os.Exit(1)
	}
	if *maxFuncs > 0 && funcs > *maxFuncs || *maxFiles > 0 && files > *maxFiles {
		fmt.Fprintf(os.Stderr, "callpath: %d functions in %d files, past the bound (%d functions, %d files)\n", funcs, files, *maxFuncs, *maxFiles)
		os.Exit(2)
	}
}

// run measures the path and prints it; it returns how many functions and
// files it has.
func run(via string) (funcs, files int, err error) {
	root, err := os.Getwd()
	if err != nil {
		return 0, 0, err
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return 0, 0, fmt.Errorf("run from the repository's top: %w", err)
	}
	module, _, _ := strings.Cut(strings.TrimPrefix(string(mod), "module "), "\n")
	tmp, err := os.MkdirTemp("", "callpath")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "mcphttp.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "-covermode=count", "-coverpkg="+module+"/...", "./mcphttp/")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 0, 0, fmt.Errorf("building mcphttp's tests with coverage: %w", err)
	}
	var counts [2]map[string]int64
	for measured := range counts {
		profile := filepath.Join(tmp, fmt.Sprintf("profile%d.txt", measured))
		test := exec.Command(bin, "-test.run", "^TestCallPath$", "-test.count", "1", "-test.coverprofile", profile)
		test.Dir = filepath.Join(root, "mcphttp")
		test.Env = append(os.Environ(), fmt.Sprintf("SWITCHBOARD_CALLPATH=%d", measured), "SWITCHBOARD_CALLPATH_VIA="+via)
		if out, err := test.CombinedOutput(); err != nil {
			return 0, 0, fmt.Errorf("TestCallPath: %w\n%s", err, out)
		}
		if counts[measured], err = readProfile(profile); err != nil {
			return 0, 0, err
		}
	}
	fns, err := executed(counts[0], counts[1], root, module)
	if err != nil {
		return 0, 0, err
	}
	files = report(fns)
	return len(fns), files, nil
}

// readProfile reads a text coverage profile: the count of each block
// ("path/name.go:line.col,line.col").
func readProfile(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for line := range strings.Lines(string(b)) {
		// block statements count, after a "mode:" line
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("profile line %q: %w", line, err)
		}
		counts[fields[0]] += n
	}
	return counts, nil
}

// function is one function that ran, and where it is.
type function struct{ pkg, file, name string }

// executed returns the functions whose blocks ran more often in after than
// in before, sorted by package, file and name.
func executed(before, after map[string]int64, root, module string) ([]function, error) {
	decls := map[string][]*ast.FuncDecl{}
	sets := map[string]*token.FileSet{}
	seen := map[function]bool{}
	for block, n := range after {
		if n <= before[block] || !strings.HasPrefix(block, module+"/") || strings.HasPrefix(block, module+"/internal/coretest/") {
			// coretest is the test's clock, where the product calls
			// time.Now.
			continue
		}
		file, pos, _ := strings.Cut(strings.TrimPrefix(block, module+"/"), ":")
		line, err := strconv.Atoi(pos[:strings.IndexByte(pos, '.')])
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", block, err)
		}
		fs, ok := sets[file]
		if !ok {
			fs = token.NewFileSet()
			f, err := parser.ParseFile(fs, filepath.Join(root, file), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					decls[file] = append(decls[file], fd)
				}
			}
			sets[file] = fs
		}
		for _, fd := range decls[file] {
			if line >= fs.Position(fd.Pos()).Line && line <= fs.Position(fd.End()).Line {
				seen[function{pkg: filepath.Dir(file), file: filepath.Base(file), name: funcName(fd)}] = true
				break
			}
		}
	}
	out := make([]function, 0, len(seen))
	for fn := range seen {
		out = append(out, fn)
	}
	slices.SortFunc(out, func(a, b function) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.file, b.file), cmp.Compare(a.name, b.name))
	})
	return out, nil
}

// funcName is a declaration's name, with its receiver's type for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// report prints the functions, then the count per package and in all, and
// returns how many files they are in.
func report(fns []function) int {
	type tally struct {
		funcs int
		files map[string]bool
	}
	per := map[string]*tally{}
	files := map[string]bool{}
	for _, fn := range fns {
		fmt.Printf("%-12s %-24s %s\n", fn.pkg, fn.file, fn.name)
		t := per[fn.pkg]
		if t == nil {
			t = &tally{files: map[string]bool{}}
			per[fn.pkg] = t
		}
		t.funcs++
		t.files[fn.file] = true
		files[fn.pkg+"/"+fn.file] = true
	}
	fmt.Println()
	pkgs := make([]string, 0, len(per))
	for p := range per {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		fmt.Printf("%s: %d functions in %d files\n", p, per[p].funcs, len(per[p].files))
	}
	fmt.Printf("work_complete: %d functions in %d files\n", len(fns), len(files))
	return len(files)
}
