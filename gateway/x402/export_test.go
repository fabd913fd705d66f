package x402

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
)

// SignPayment is signPayment for the external tests.
var SignPayment = signPayment

// StoreVerified writes the record a crash between a passed verification
// and the settlement leaves behind: state verified, the answer body kept.
func StoreVerified(db *badger.DB, chainID int64, token common.Address, header string, body json.RawMessage) error {
	pay, err := DecodePaymentSignature(header)
	if err != nil {
		return err
	}
	a := pay.Authorization
	now := time.Now().UTC()
	_, _, err = createRecord(db, authKey(chainID, token, a.From, a.Nonce), record{State: stateVerified, Capability: "compute.statistics.mean",
		Payer: a.From.Hex(), Amount: a.Value.String(), Created: now, Updated: now, Header: header, JobID: "crashed-job",
		Status: http.StatusOK, Body: body})
	return err
}
