package atomicfile

import (
	"fmt"
	"os"
)

// ReadSmall reads a file of at most limit bytes: a larger one is an error,
// not something to read whole. An empty file reads as "".
func ReadSmall(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, limit+1)
	n, err := f.Read(buf)
	if err != nil && n == 0 {
		return "", nil
	}
	if n > limit {
		return "", fmt.Errorf("%s is too large (over %d bytes)", path, limit)
	}
	return string(buf[:n]), nil
}
