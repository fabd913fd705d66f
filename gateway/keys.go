package gateway

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Keys of the gateway's records in the node's Badger database. Every key
// starts with "gateway/", which no other package of the node uses.
const (
	// taskPrefix starts a task record: taskPrefix + task ID.
	taskPrefix = "gateway/task/"
)

// taskIDLen is the length of a task ID: 32 lowercase hex digits, the first
// 16 the creation time in nanoseconds (big-endian), so that key order is
// creation order, the rest random.
const taskIDLen = 32

// taskKey is the key of task id: "gateway/task/" + the ID's 32 hex digits.
// IDs are made here and checked on the way in, so they hold no separator.
func taskKey(id string) []byte { return []byte(taskPrefix + id) }

// parseTaskKey returns the task ID of a task key.
func parseTaskKey(k []byte) (string, error) {
	id, ok := strings.CutPrefix(string(k), taskPrefix)
	if !ok || !validTaskID(id) {
		return "", fmt.Errorf("gateway: %q is not a task key", k)
	}
	return id, nil
}

// validTaskID reports whether id has the form of a task ID.
func validTaskID(id string) bool {
	if len(id) != taskIDLen || strings.ToLower(id) != id {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}
