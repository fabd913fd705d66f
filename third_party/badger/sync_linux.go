/*
 * SPDX-FileCopyrightText: © 2017-2025 Istari Digital, Inc.
 * SPDX-License-Identifier: Apache-2.0
 */

package badger

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncData makes f's data durable (swarmwage patch, see
// third_party/PATCHES.md): fdatasync, which skips the timestamps fsync
// would also write.
func syncData(f *os.File) error {
	return unix.Fdatasync(int(f.Fd()))
}
