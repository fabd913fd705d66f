package market

// Badger keys of the market. Capability IDs are lowercase [a-z0-9.-] after
// verify.CheckID, so they cannot contain the separator of a longer key.
//
//	listing/<capability-id>   -> offerRecord (versioned JSON)
const listingPrefix = "listing/"

func listingKey(capID string) []byte { return []byte(listingPrefix + capID) }
