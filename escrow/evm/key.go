package evm

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/swarmwage/swarmwage/internal/atomicfile"
)

// KeyFileName is the node's secp256k1 key in its repo.
const KeyFileName = "evm.key"

// maxKeyFile bounds what LoadKey reads: a key file is 64 hex characters and
// maybe a 0x prefix and a newline.
const maxKeyFile = 256

// ErrKeyFile: a key file is missing, unreadable, malformed or readable by
// others.
var ErrKeyFile = errors.New("evm: key file")

// Key is a node's secp256k1 key: it signs vouchers and pays gas. Its String,
// GoString and Format print only the address, so a key that ends up in a log
// line or an error never shows its secret.
type Key struct {
	priv *ecdsa.PrivateKey
	addr common.Address
}

// Address is the key's Ethereum address.
func (k *Key) Address() common.Address { return k.addr }

// String returns "evm key 0x…" (the address, never the secret).
func (k *Key) String() string { return "evm key " + k.addr.Hex() }

// GoString keeps %#v from printing the private key.
func (k *Key) GoString() string { return k.String() }

// Format keeps every fmt verb from printing the private key.
func (k *Key) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, k.String()) }

// Transactor returns transaction options that sign with the key for the
// chain chainID (EIP-155: a transaction signed for one chain does not replay
// on another).
func (k *Key) Transactor(chainID *big.Int) (*bind.TransactOpts, error) {
	opts, err := bind.NewKeyedTransactorWithChainID(k.priv, chainID)
	if err != nil {
		return nil, fmt.Errorf("transactor for %s: %w", k.addr, err)
	}
	return opts, nil
}

// GenerateKey makes a new random key (not stored).
func GenerateKey() (*Key, error) {
	priv, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("generate evm key: %w", err)
	}
	return newKey(priv), nil
}

// ParseKey reads a key from its hex text (64 hex characters, optional 0x,
// surrounding white space ignored), the format of anvil's and most wallets'
// exported private keys.
func ParseKey(text string) (*Key, error) {
	s := strings.TrimPrefix(strings.TrimSpace(text), "0x")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%w: want 64 hex characters (a secp256k1 private key)", ErrKeyFile)
	}
	priv, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid secp256k1 private key", ErrKeyFile)
	}
	return newKey(priv), nil
}

func newKey(priv *ecdsa.PrivateKey) *Key {
	return &Key{priv: priv, addr: crypto.PubkeyToAddress(priv.PublicKey)}
}

// LoadKey reads the key at path. It refuses a file that group or others may
// read: a money key readable by other users is as good as theirs.
func LoadKey(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w %s: mode %04o lets other users read it; run 'chmod 600 %s'", ErrKeyFile, path, st.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%w %s: larger than %d bytes, not a key file", ErrKeyFile, path, maxKeyFile)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return k, nil
}

// SaveKey writes k to path (mode 0600, hex text), atomically, and fails if
// path exists: an existing key may hold money and is never overwritten.
func SaveKey(path string, k *Key) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%w %s: exists; refusing to overwrite a key", ErrKeyFile, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	// Create, not Write: it fails if path appeared since the check above,
	// so a concurrent init never replaces a key the other one wrote.
	text := hex.EncodeToString(crypto.FromECDSA(k.priv)) + "\n"
	if err := atomicfile.Create(path, []byte(text), 0o600); err != nil {
		return fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	return nil
}

// LoadOrCreateKey loads the key at path, or creates and saves a new one if
// there is none. created says which happened.
func LoadOrCreateKey(path string) (k *Key, created bool, err error) {
	k, err = LoadKey(path)
	if err == nil {
		return k, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if k, err = GenerateKey(); err != nil {
		return nil, false, err
	}
	if err = SaveKey(path, k); err != nil {
		return nil, false, err
	}
	return k, true, nil
}

// ImportKey copies the key in file src (hex text, as ParseKey reads) to path
// (0600). src may be readable by others (a key handed over for import); path
// never is.
func ImportKey(path, src string) (*Key, error) {
	b, err := readSmall(src)
	if err != nil {
		return nil, err
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, src)
	}
	if err := SaveKey(path, k); err != nil {
		return nil, err
	}
	return k, nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKeyFile, path, err)
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%w %s: larger than %d bytes, not a key file", ErrKeyFile, path, maxKeyFile)
	}
	return b, nil
}

// ReadKeyFile reads a key handed to a command (--key-file), such as a
// deployer's. Unlike LoadKey it accepts a file others may read, and says so
// in shared: the caller warns, since the key is the user's to protect.
func ReadKeyFile(path string) (k *Key, shared bool, err error) {
	b, err := readSmall(path)
	if err != nil {
		return nil, false, err
	}
	if k, err = ParseKey(string(b)); err != nil {
		return nil, false, fmt.Errorf("%w (%s)", err, path)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		shared = true
	}
	return k, shared, nil
}
