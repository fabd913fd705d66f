//go:build !linux

/*
 * SPDX-FileCopyrightText: © 2017-2025 Istari Digital, Inc.
 * SPDX-License-Identifier: Apache-2.0
 */

package badger

import "os"

// syncData makes f's data durable (swarmwage patch, see
// third_party/PATCHES.md).
func syncData(f *os.File) error {
	return f.Sync()
}
