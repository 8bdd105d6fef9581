package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"
)

// embeddedPostgres is a private PostgreSQL cluster under the project's .data folder, started
// when nothing answers at DATABASE_URL so that `make run` needs no set-up.
type embeddedPostgres struct {
	binDir  string
	dataDir string
	port    int
	cred    *syscall.Credential // run as this user when we are root (PostgreSQL refuses root)
	log     zerolog.Logger
}

// ensurePostgres returns nil stop when the server at databaseURL answers. When it does not, the
// URL points at this machine, and PostgreSQL's server binaries are installed, it starts a private
// cluster in dataDir on the URL's port and returns the function that stops it.
func ensurePostgres(ctx context.Context, databaseURL, dataDir string, log zerolog.Logger) (stop func(), err error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if answers(ctx, u) {
		return nil, nil
	}
	host := u.Hostname()
	if host != "127.0.0.1" && host != "localhost" && host != "::1" {
		return nil, fmt.Errorf("nothing answers at %s and it is not this machine: start PostgreSQL there", u.Redacted())
	}
	port := 5432
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("DATABASE_URL port %q: %w", p, err)
		}
	}
	bin, err := findPostgresBin()
	if err != nil {
		return nil, fmt.Errorf("nothing answers at %s and %w; install PostgreSQL (Debian: apt-get install postgresql)", u.Redacted(), err)
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	pg := &embeddedPostgres{binDir: bin, dataDir: abs, port: port, log: log}
	if os.Geteuid() == 0 {
		if pg.cred, err = unprivilegedUser(); err != nil {
			return nil, err
		}
	}
	if err := pg.start(ctx); err != nil {
		return nil, err
	}
	log.Info().Str("data_dir", abs).Int("port", port).Msg("started a private PostgreSQL cluster because nothing answered at DATABASE_URL")
	return pg.stop, nil
}

func answers(ctx context.Context, u *url.URL) bool {
	probe := *u
	probe.Path = "/postgres"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, probe.String())
	if err == nil {
		_ = conn.Close(context.Background())
		return true
	}
	// A server that refuses us (authentication, missing database) still answers.
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

func findPostgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func unprivilegedUser() (*syscall.Credential, error) {
	usr, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root and there is no 'postgres' user to run the private cluster as")
	}
	uid, _ := strconv.Atoi(usr.Uid)
	gid, _ := strconv.Atoi(usr.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (pg *embeddedPostgres) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(pg.binDir, name), args...)
	cmd.Dir = pg.dataDir
	if pg.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return nil
}

func (pg *embeddedPostgres) start(ctx context.Context) error {
	parent := filepath.Dir(pg.dataDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", parent, err)
	}
	if err := os.MkdirAll(pg.dataDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", pg.dataDir, err)
	}
	if pg.cred != nil {
		// The unprivileged user must be able to pass through the parent to its own folder.
		if err := os.Chmod(parent, 0o755); err != nil {
			return fmt.Errorf("open %s to the postgres user: %w", parent, err)
		}
		if err := os.Chown(pg.dataDir, int(pg.cred.Uid), int(pg.cred.Gid)); err != nil {
			return fmt.Errorf("hand %s to the postgres user: %w", pg.dataDir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(pg.dataDir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := pg.run(ctx, "initdb", "-D", pg.dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions"); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s", pg.port, pg.dataDir)
	return pg.run(ctx, "pg_ctl", "-D", pg.dataDir, "-o", opts, "-l", filepath.Join(pg.dataDir, "server.log"), "-w", "-t", "60", "start")
}

func (pg *embeddedPostgres) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pg.run(ctx, "pg_ctl", "-D", pg.dataDir, "-m", "fast", "-w", "stop"); err != nil {
		pg.log.Warn().Err(err).Msg("stop private PostgreSQL cluster")
	}
}
