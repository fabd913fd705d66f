//go:build linux

package storage

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeGuard is a guard on dir whose statfs answers *free.
func fakeGuard(t *testing.T, dir string, minFree uint64, free *atomic.Uint64) (*Guard, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	g := NewGuard(dir, minFree, slog.New(slog.NewTextHandler(&logs, nil)))
	g.statfs = func(string) (uint64, error) { return free.Load(), nil }
	return g, &logs
}

func TestAdmitRefusesBelowTheWatermarkWithAClearError(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Uint64
	g, logs := fakeGuard(t, dir, 64<<20, &free)
	ctx := context.Background()

	free.Store(100 << 20)
	require.NoError(t, g.Admit(ctx))

	free.Store(3 << 20)
	err := g.Admit(ctx)
	require.ErrorIs(t, err, ErrDiskFull)
	var de *DiskFullError
	require.ErrorAs(t, err, &de)
	require.Equal(t, uint64(3<<20), de.Free)
	msg := err.Error()
	for _, want := range []string{"disk full", "3 MiB free", dir, "64 MiB", "new quotes and hires are refused", "61 MiB more", "min_free", "do not delete files in"} {
		require.Contains(t, msg, want)
	}
	require.Error(t, g.Admit(ctx), "still refused while low")

	free.Store(64 << 20)
	require.NoError(t, g.Admit(ctx), "admits again once space is back, without a restart")
	require.Equal(t, 1, strings.Count(logs.String(), "below the watermark"), "one warning per crossing")
	require.Equal(t, 1, strings.Count(logs.String(), "back above the watermark"))
}

func TestAdmitWithMinFreeZeroNeverRefuses(t *testing.T) {
	var free atomic.Uint64
	g, _ := fakeGuard(t, t.TempDir(), 0, &free)
	require.NoError(t, g.Admit(context.Background()))
}

func TestAdmitWhenStatfsFailsAdmits(t *testing.T) {
	g := NewGuard(t.TempDir(), 64<<20, slog.New(slog.DiscardHandler))
	g.statfs = func(string) (uint64, error) { return 0, errors.New("no statfs here") }
	require.NoError(t, g.Admit(context.Background()))
}

// TestReserveIsReleasedWhenTheDiskNearlyFillsAndRestoredAfter: the reserve
// gives running jobs room when another program fills the disk.
func TestReserveIsReleasedWhenTheDiskNearlyFillsAndRestoredAfter(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Uint64
	g, logs := fakeGuard(t, dir, 2*openFloor, &free)
	reserve := filepath.Join(dir, reserveFile)

	free.Store(1 << 30)
	g.Tick()
	fi, err := os.Stat(reserve)
	require.NoError(t, err, "plenty of room: the reserve is made")
	require.Equal(t, int64(reserveSize), fi.Size())
	require.GreaterOrEqual(t, allocatedBytes(t, reserve), uint64(reserveSize), "with real blocks, not a hole")

	free.Store(openFloor + 1<<20)
	g.Tick()
	require.FileExists(t, reserve, "under the watermark but above the floor: kept")

	closeReserve := filepath.Join(dir, closeReserveFile)
	require.FileExists(t, closeReserve)
	require.GreaterOrEqual(t, allocatedBytes(t, closeReserve), uint64(closeFloor))

	free.Store(openFloor - 1)
	g.Tick()
	require.NoFileExists(t, reserve, "under the floor: released")
	require.FileExists(t, closeReserve, "the close reserve stays for the flush at close")
	require.Contains(t, logs.String(), "released the reserve")
	avail, err := g.available()
	require.NoError(t, err)
	require.Equal(t, uint64(openFloor-1+closeFloor), avail, "the close reserve counts as free for the watermark")

	free.Store(reserveAgainAt - 1)
	g.Tick()
	require.NoFileExists(t, reserve, "not made again until well above the floor")
	free.Store(reserveAgainAt)
	g.Tick()
	require.FileExists(t, reserve)
}

// guardWithReserves is a guard with a 40 MiB watermark whose first tick,
// on a disk with 1 GiB free, made the reserves.
func guardWithReserves(t *testing.T) (*Guard, string, *atomic.Uint64) {
	t.Helper()
	dir := t.TempDir()
	free := new(atomic.Uint64)
	g, _ := fakeGuard(t, dir, 40<<20, free)
	free.Store(1 << 30)
	g.Tick()
	require.FileExists(t, filepath.Join(dir, reserveFile))
	return g, dir, free
}

// TestReleasingTheReserveLetsNoNewWorkIn: the reserve is the node's own
// free space, so the watermark counts it whether or not it is released.
func TestReleasingTheReserveLetsNoNewWorkIn(t *testing.T) {
	g, dir, free := guardWithReserves(t)
	ctx := context.Background()

	free.Store(10 << 20) // another program filled the disk
	err := g.Admit(ctx)
	require.ErrorIs(t, err, ErrDiskFull, "10 MiB free and the reserves' 24 MiB are under 40 MiB")
	g.Tick()
	require.NoFileExists(t, filepath.Join(dir, reserveFile))
	free.Store(10<<20 + reserveSize) // the released reserve is free now
	require.ErrorIs(t, g.Admit(ctx), ErrDiskFull, "the released reserve is headroom for running jobs, not for new ones")
}

func TestRoomToCloseReleasesTheReserves(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Uint64
	g, _ := fakeGuard(t, dir, 0, &free)
	g.statfs = func(string) (uint64, error) {
		// Deleting a reserve frees its blocks.
		n := free.Load()
		for _, name := range []string{reserveFile, closeReserveFile} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				n += map[string]uint64{reserveFile: reserveSize, closeReserveFile: closeFloor}[name]
			}
		}
		return n, nil
	}
	require.NoError(t, allocateFile(filepath.Join(dir, reserveFile), reserveSize))
	require.NoError(t, allocateFile(filepath.Join(dir, closeReserveFile), closeFloor))
	free.Store(0) // another program took everything else
	require.True(t, g.RoomToClose(), "the reserve makes room for the flush at close")
	require.NoFileExists(t, filepath.Join(dir, reserveFile))
	require.FileExists(t, filepath.Join(dir, closeReserveFile), "one was enough")
	require.NoError(t, allocateFile(filepath.Join(dir, reserveFile), reserveSize))
	free.Store(0)
	require.NoError(t, os.Remove(filepath.Join(dir, reserveFile)))
	g.statfs = func(string) (uint64, error) { // only the close reserve is left
		if _, err := os.Stat(filepath.Join(dir, closeReserveFile)); err != nil {
			return closeFloor, nil
		}
		return 0, nil
	}
	require.True(t, g.RoomToClose(), "the close reserve is the last resort")
	require.NoFileExists(t, filepath.Join(dir, closeReserveFile))

	g, _ = fakeGuard(t, t.TempDir(), 0, &free)
	require.False(t, g.RoomToClose(), "no reserve and no room: leave the database to replay")
}

func TestCheckOpenReleasesTheReserveThenRefusesWithAClearError(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Uint64
	g, _ := fakeGuard(t, dir, 64<<20, &free)
	require.NoError(t, allocateFile(filepath.Join(dir, reserveFile), reserveSize))

	free.Store(openFloor)
	require.NoError(t, g.CheckOpen())
	require.FileExists(t, filepath.Join(dir, reserveFile))

	free.Store(1 << 20)
	err := g.CheckOpen()
	require.ErrorIs(t, err, ErrDiskFull)
	require.Contains(t, err.Error(), "cannot be opened for writing")
	require.NoFileExists(t, filepath.Join(dir, reserveFile), "the reserve went first")
}

// Admit counts the reserves as the guard last saw them, without a stat a
// hire; a reserve deleted behind the guard's back stops counting at the
// next Tick.
func TestAdmitCountsTheReservesAsLastSeen(t *testing.T) {
	g, dir, free := guardWithReserves(t)
	ctx := context.Background()

	free.Store(30 << 20) // 30 MiB and the reserves' 24 MiB: over 40 MiB
	require.NoError(t, g.Admit(ctx))
	require.NoError(t, os.Remove(filepath.Join(dir, reserveFile)))
	require.NoError(t, g.Admit(ctx), "until the next look, the reserve counts")
	g.Tick()
	require.ErrorIs(t, g.Admit(ctx), ErrDiskFull, "30 MiB and the close reserve's 8 MiB: under 40 MiB")
}
