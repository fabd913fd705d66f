// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contract

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
	_ = time.Tick
	_ = context.Background
)

// SwarmwageEscrowVoucher is an auto generated low-level Go binding around an user-defined struct.
type SwarmwageEscrowVoucher struct {
	Release   bool
	JobId     [32]byte
	Buyer     common.Address
	Amount    *big.Int
	NotBefore uint64
	Signature []byte
}

// SwarmwageEscrowMetaData contains all meta data concerning the SwarmwageEscrow contract.
var SwarmwageEscrowMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token_\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"notice_\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"BadVoucher\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"available\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"wanted\",\"type\":\"uint256\"}],\"name\":\"Insufficient\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NoCode\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NoWithdrawal\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"readyAt\",\"type\":\"uint64\"}],\"name\":\"NoticeRunning\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Reentrancy\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TransferFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAmount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Allocated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"}],\"name\":\"Cancelled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Deposited\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"released\",\"type\":\"bool\"}],\"name\":\"Paid\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"reason\",\"type\":\"uint8\"}],\"name\":\"Skipped\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"readyAt\",\"type\":\"uint64\"}],\"name\":\"WithdrawRequested\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Withdrawn\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"CANCELLED\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"LOCK_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"OPEN\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PAID\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RELEASE_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SKIP_ALREADY_PAID\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SKIP_BAD_SIGNATURE\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SKIP_CANCELLED\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SKIP_NOT_COVERED\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SKIP_TOO_EARLY\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"allocate\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"bytes32[]\",\"name\":\"jobIds\",\"type\":\"bytes32[]\"}],\"name\":\"cancel\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"deposit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"free\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"notBefore\",\"type\":\"uint64\"}],\"name\":\"hashLock\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"hashRelease\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"}],\"name\":\"job\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"state\",\"type\":\"uint8\"},{\"internalType\":\"uint64\",\"name\":\"cancelledAt\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"}],\"name\":\"jobKey\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"}],\"name\":\"line\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"withdrawing\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"withdrawAt\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"notice\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"bool\",\"name\":\"release\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"jobId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"buyer\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"notBefore\",\"type\":\"uint64\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"internalType\":\"structSwarmwageEscrow.Voucher[]\",\"name\":\"vs\",\"type\":\"tuple[]\"}],\"name\":\"redeem\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"requestWithdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"seller\",\"type\":\"address\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"withdrawFree\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6101006040526001600355348015610015575f5ffd5b50604051611bee380380611bee8339810160408190526100349161012e565b816001600160a01b03163b5f0361005e57604051633c11a9c560e21b815260040160405180910390fd5b6001600160a01b0382166080526001600160401b03811660a0524660c052610123604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f450355aecec6354d35d11d95d3d412d6633ba457654d214b7ea9758aa78fc41c918101919091527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b60e0525061017c9050565b5f5f6040838503121561013f575f5ffd5b82516001600160a01b0381168114610155575f5ffd5b60208401519092506001600160401b0381168114610171575f5ffd5b809150509250929050565b60805160a05160c05160e051611a2a6101c45f395f610f2401525f610e5001525f818161030801526104f201525f818161042201528181610f4a01526113db0152611a2a5ff3fe608060405234801561000f575f5ffd5b50600436106101a5575f3560e01c8063a5926669116100e8578063c01ee5ac11610093578063d31a03c21161006e578063d31a03c214610232578063da520d5914610402578063f698da2514610415578063fc0c546a1461041d575f5ffd5b8063c01ee5ac146103c9578063c9b5bb17146103dc578063d1b9c430146103fb575f5ffd5b8063b6b55f25116100c3578063b6b55f2514610390578063b78b52df146103a3578063bd848476146103b6575f5ffd5b8063a592666914610356578063ae71dcdf14610218578063b292462014610369575f5ffd5b80636d7ee284116101535780637b5473c31161012e5780637b5473c3146102855780639bc87b25146102fb5780639c94e6c614610303578063a44dfc9914610343575f5ffd5b80636d7ee2841461026257806376f443cf1461026a5780637a3b636514610272575f5ffd5b806331acb1d21161018357806331acb1d214610232578063397a1b281461023a57806351cff8d91461024f575f5ffd5b806305c27d16146101a95780630902df91146101e35780632f4cb20014610218575b5f5ffd5b6101bc6101b736600461165e565b61045c565b6040805160ff909316835267ffffffffffffffff9091166020830152015b60405180910390f35b61020a7f85972caf2f9b6dd0c8d36a43569171d2f928c2d52d3bf739a332b76b8ee63a0c81565b6040519081526020016101da565b610220600281565b60405160ff90911681526020016101da565b610220600181565b61024d610248366004611698565b61049c565b005b61024d61025d3660046116c0565b61059c565b610220600481565b610220600381565b61020a6102803660046116f0565b610788565b6102d6610293366004611743565b6001600160a01b038083165f908152600160208181526040808420948616845293905291902080549181015460029091015467ffffffffffffffff169250925092565b60408051938452602084019290925267ffffffffffffffff16908201526060016101da565b610220600581565b61032a7f000000000000000000000000000000000000000000000000000000000000000081565b60405167ffffffffffffffff90911681526020016101da565b61020a610351366004611774565b61084f565b61024d6103643660046117fd565b610905565b61020a7f854341268f21e3bd113bb690cfbd167ea89c57b59e691697526f94e292977ab981565b61024d61039e36600461184c565b610a00565b61024d6103b1366004611698565b610af8565b61024d6103c43660046117fd565b610c0e565b61024d6103d736600461184c565b610d08565b61020a6103ea3660046116c0565b5f6020819052908152604090205481565b6102205f81565b61020a61041036600461165e565b610e04565b61020a610e4d565b6104447f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016101da565b5f5f5f60025f61046d888888610e04565b815260208101919091526040015f205460ff81169761010090910467ffffffffffffffff169650945050505050565b6003546001146104bf5760405163558a1e0360e11b815260040160405180910390fd5b6002600355335f9081526001602090815260408083206001600160a01b0386168452909152812090821561051c576105177f000000000000000000000000000000000000000000000000000000000000000042611877565b61051e565b5f5b6001830184905560028301805467ffffffffffffffff191667ffffffffffffffff83169081179091556040805186815260208101929092529192506001600160a01b0386169133917f37cfe096bfb86f6d34b6486bcaf1c1513cb7ad34ec77e1cb2c717d6dd0960434910160405180910390a3505060016003555050565b6003546001146105bf5760405163558a1e0360e11b815260040160405180910390fd5b60026003819055335f9081526001602090815260408083206001600160a01b038616845290915281209182015467ffffffffffffffff1690819003610630576040517f0b509f7400000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b8067ffffffffffffffff16421015610685576040517fe164a92500000000000000000000000000000000000000000000000000000000815267ffffffffffffffff821660048201526024015b60405180910390fd5b5f825f015483600101541061069b5782546106a1565b82600101545b905080835f015f8282546106b59190611897565b90915550505f600184015560028301805467ffffffffffffffff191690556040518181526001600160a01b0385169033907fd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb9060200160405180910390a3801561077d576040513360248201526044810182905261077d9063a9059cbb906064015b6040516020818303038152906040529060e01b6020820180517bffffffffffffffffffffffffffffffffffffffffffffffffffffffff8381831617835250505050610f46565b505060016003555050565b604080517f854341268f21e3bd113bb690cfbd167ea89c57b59e691697526f94e292977ab960208201529081018690526001600160a01b0380861660608301528416608082015260a0810183905267ffffffffffffffff821660c08201525f90819060e00160405160208183030381529060405280519060200120905061080d610e4d565b60405161190160f01b60208201526022810191909152604281018290526062016040516020818303038152906040528051906020012091505095945050505050565b604080517f85972caf2f9b6dd0c8d36a43569171d2f928c2d52d3bf739a332b76b8ee63a0c60208201529081018590526001600160a01b0380851660608301528316608082015260a081018290525f90819060c0016040516020818303038152906040528051906020012090506108c4610e4d565b60405161190160f01b602082015260228101919091526042810182905260620160405160208183030381529060405280519060200120915050949350505050565b6003546001146109285760405163558a1e0360e11b815260040160405180910390fd5b60026003556001600160a01b03831661095457604051630de54e5d60e31b815260040160405180910390fd5b5f805b828110156109ce5761098c85858584818110610975576109756118aa565b905060200281019061098791906118be565b611033565b156109c6578383828181106109a3576109a36118aa565b90506020028101906109b591906118be565b6109c39060600135836118dc565b91505b600101610957565b50801561077d576040516001600160a01b03851660248201526044810182905261077d9063a9059cbb90606401610737565b600354600114610a235760405163558a1e0360e11b815260040160405180910390fd5b60026003555f819003610a4957604051631f2a200560e01b815260040160405180910390fd5b5f610a5261136a565b60405133602482015230604482015260648101849052909150610a7d906323b872dd90608401610737565b5f81610a8761136a565b610a919190611897565b335f90815260208190526040812080549293508392909190610ab49084906118dc565b909155505060405181815233907f2da466a7b24304f47e87fa2e1e5a81b9831ce54fec19055ce277ca2f39ba42c49060200160405180910390a25050600160035550565b600354600114610b1b5760405163558a1e0360e11b815260040160405180910390fd5b60026003555f819003610b4157604051631f2a200560e01b815260040160405180910390fd5b335f9081526020819052604090205481811015610b7a57604051621d0c4160eb1b8152600481018290526024810183905260440161067c565b610b848282611897565b335f9081526020818152604080832093909355600181528282206001600160a01b038716835290529081208054849290610bbf9084906118dc565b90915550506040518281526001600160a01b0384169033907fbe8864d3a5ed38c5e26974fcc84f97fd03d55f6b774d46b844205d5f7b6b5c0b9060200160405180910390a35050600160035550565b600354600114610c315760405163558a1e0360e11b815260040160405180910390fd5b60026003555f5b8181101561077d575f60025f610c673388888888818110610c5b57610c5b6118aa565b90506020020135610e04565b815260208101919091526040015f20805490915060ff1615610c895750610d00565b805467ffffffffffffffff42166101000268ffffffffffffffffff199091161760021781556001600160a01b03851633858585818110610ccb57610ccb6118aa565b905060200201357ffc75bf14026522f28058fe998b811398067a73557949d49931ff31f94efdd65c60405160405180910390a4505b600101610c38565b600354600114610d2b5760405163558a1e0360e11b815260040160405180910390fd5b60026003555f819003610d5157604051631f2a200560e01b815260040160405180910390fd5b335f9081526020819052604090205481811015610d8a57604051621d0c4160eb1b8152600481018290526024810183905260440161067c565b610d948282611897565b335f8181526020818152604080832094909455925185815290927fd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb910160405180910390a360405133602482015260448101839052610dfb9063a9059cbb90606401610737565b50506001600355565b604080516001600160a01b038086166020830152841691810191909152606081018290525f906080016040516020818303038152906040528051906020012090505b9392505050565b5f7f00000000000000000000000000000000000000000000000000000000000000004614610f2157610f1c604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f450355aecec6354d35d11d95d3d412d6633ba457654d214b7ea9758aa78fc41c918101919091527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b905090565b507f000000000000000000000000000000000000000000000000000000000000000090565b5f5f7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031683604051610f8091906118ef565b5f604051808303815f865af19150503d805f8114610fb9576040519150601f19603f3d011682016040523d82523d5f602084013e610fbe565b606091505b509150915081610fe1576040516312171d8360e31b815260040160405180910390fd5b805115801590611010575060208151108061101057508080602001905181019061100b9190611905565b600114155b1561102e576040516312171d8360e31b815260040160405180910390fd5b505050565b5f8061104560608401604085016116c0565b6001600160a01b0316148061105c57506060820135155b1561107a57604051630de54e5d60e31b815260040160405180910390fd5b611087602083018361191c565b80156110ab575061109e60a083016080840161193b565b67ffffffffffffffff1615155b156110c957604051630de54e5d60e31b815260040160405180910390fd5b5f6110d7602084018461191c565b61110e5761110960208401356110f360608601604087016116c0565b86606087013561028060a0890160808a0161193b565b611131565b611131602084013561112660608601604087016116c0565b86866060013561084f565b905061114360608401604085016116c0565b6001600160a01b03166111628261115d60a0870187611954565b611497565b6001600160a01b0316146111845761117c848460016115d1565b915050611364565b5f6002816111a661119b60608801604089016116c0565b888860200135610e04565b815260208101919091526040015f20805490915060ff165f19016111d9576111d0858560026115d1565b92505050611364565b6111e6602085018561191c565b611260576111fa60a085016080860161193b565b67ffffffffffffffff16421015611217576111d0858560046115d1565b805460ff16600214801561124f575061123660a085016080860161193b565b815467ffffffffffffffff918216610100909104909116105b15611260576111d0858560036115d1565b5f60018161127460608801604089016116c0565b6001600160a01b03908116825260208083019390935260409182015f908120918a168152925290208054909150606086013511156112c2576112b8868660056115d1565b9350505050611364565b8460600135815f015f8282546112d89190611897565b9091555050815460ff191660011782556001600160a01b03861661130260608701604088016116c0565b6001600160a01b0316602087018035907f0918d2e09dd09d103511027ca55c43928dbe3103fdd886ef80e7074201d24f809060608a013590611344908b61191c565b6040805192835290151560208301520160405180910390a4600193505050505b92915050565b604080513060248083019190915282518083039091018152604490910182526020810180517bffffffffffffffffffffffffffffffffffffffffffffffffffffffff167f70a082310000000000000000000000000000000000000000000000000000000017905290515f91829182917f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03169161140e91906118ef565b5f60405180830381855afa9150503d805f8114611446576040519150601f19603f3d011682016040523d82523d5f602084013e61144b565b606091505b509150915081158061145e575060208151105b1561147c576040516312171d8360e31b815260040160405180910390fd5b808060200190518101906114909190611905565b9250505090565b5f604182146114a757505f610e46565b5f6114b56020828587611997565b6114be916119be565b90505f6114cf604060208688611997565b6114d8916119be565b90505f858560408181106114ee576114ee6118aa565b919091013560f81c915050601b8110156115105761150d601b826119db565b90505b8060ff16601b1415801561152857508060ff16601c14155b15611538575f9350505050610e46565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082111561156b575f9350505050610e46565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa1580156115bb573d5f5f3e3d5ffd5b5050604051601f19015198975050505050505050565b5f6001600160a01b0384166115ec60608501604086016116c0565b6001600160a01b031684602001357f6ebe9dc0661cf73d3b3a7bc00e1fbb344bc0d6217bbc5c41707eee14231760dc85604051611632919060ff91909116815260200190565b60405180910390a4505f9392505050565b80356001600160a01b0381168114611659575f5ffd5b919050565b5f5f5f60608486031215611670575f5ffd5b61167984611643565b925061168760208501611643565b929592945050506040919091013590565b5f5f604083850312156116a9575f5ffd5b6116b283611643565b946020939093013593505050565b5f602082840312156116d0575f5ffd5b610e4682611643565b803567ffffffffffffffff81168114611659575f5ffd5b5f5f5f5f5f60a08688031215611704575f5ffd5b8535945061171460208701611643565b935061172260408701611643565b925060608601359150611737608087016116d9565b90509295509295909350565b5f5f60408385031215611754575f5ffd5b61175d83611643565b915061176b60208401611643565b90509250929050565b5f5f5f5f60808587031215611787575f5ffd5b8435935061179760208601611643565b92506117a560408601611643565b9396929550929360600135925050565b5f5f83601f8401126117c5575f5ffd5b50813567ffffffffffffffff8111156117dc575f5ffd5b6020830191508360208260051b85010111156117f6575f5ffd5b9250929050565b5f5f5f6040848603121561180f575f5ffd5b61181884611643565b9250602084013567ffffffffffffffff811115611833575f5ffd5b61183f868287016117b5565b9497909650939450505050565b5f6020828403121561185c575f5ffd5b5035919050565b634e487b7160e01b5f52601160045260245ffd5b67ffffffffffffffff818116838216019081111561136457611364611863565b8181038181111561136457611364611863565b634e487b7160e01b5f52603260045260245ffd5b5f823560be198336030181126118d2575f5ffd5b9190910192915050565b8082018082111561136457611364611863565b5f82518060208501845e5f920191825250919050565b5f60208284031215611915575f5ffd5b5051919050565b5f6020828403121561192c575f5ffd5b81358015158114610e46575f5ffd5b5f6020828403121561194b575f5ffd5b610e46826116d9565b5f5f8335601e19843603018112611969575f5ffd5b83018035915067ffffffffffffffff821115611983575f5ffd5b6020019150368190038213156117f6575f5ffd5b5f5f858511156119a5575f5ffd5b838611156119b1575f5ffd5b5050820193919092039150565b80356020831015611364575f19602084900360031b1b1692915050565b60ff81811683821601908111156113645761136461186356fea26469706673582212201ab511252248e1d824579b0014d79174a790d27c9808180782243f418b337d7a64736f6c63430008250033",
}

// SwarmwageEscrowABI is the input ABI used to generate the binding from.
// Deprecated: Use SwarmwageEscrowMetaData.ABI instead.
var SwarmwageEscrowABI = SwarmwageEscrowMetaData.ABI

// SwarmwageEscrowBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SwarmwageEscrowMetaData.Bin instead.
var SwarmwageEscrowBin = SwarmwageEscrowMetaData.Bin

// DeploySwarmwageEscrow deploys a new Ethereum contract, binding an instance of SwarmwageEscrow to it.
func DeploySwarmwageEscrow(auth *bind.TransactOpts, backend bind.ContractBackend, token_ common.Address, notice_ uint64) (common.Address, *types.Transaction, *SwarmwageEscrow, error) {
	parsed, err := SwarmwageEscrowMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SwarmwageEscrowBin), backend, token_, notice_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SwarmwageEscrow{SwarmwageEscrowCaller: SwarmwageEscrowCaller{contract: contract}, SwarmwageEscrowTransactor: SwarmwageEscrowTransactor{contract: contract}, SwarmwageEscrowFilterer: SwarmwageEscrowFilterer{contract: contract}}, nil
}

// SwarmwageEscrow is an auto generated Go binding around an Ethereum contract.
type SwarmwageEscrow struct {
	SwarmwageEscrowCaller     // Read-only binding to the contract
	SwarmwageEscrowTransactor // Write-only binding to the contract
	SwarmwageEscrowFilterer   // Log filterer for contract events
}

// SwarmwageEscrowCaller is an auto generated read-only Go binding around an Ethereum contract.
type SwarmwageEscrowCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SwarmwageEscrowTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SwarmwageEscrowTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SwarmwageEscrowFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SwarmwageEscrowFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SwarmwageEscrowSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SwarmwageEscrowSession struct {
	Contract     *SwarmwageEscrow  // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// SwarmwageEscrowCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SwarmwageEscrowCallerSession struct {
	Contract *SwarmwageEscrowCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts          // Call options to use throughout this session
}

// SwarmwageEscrowTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SwarmwageEscrowTransactorSession struct {
	Contract     *SwarmwageEscrowTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts          // Transaction auth options to use throughout this session
}

// SwarmwageEscrowRaw is an auto generated low-level Go binding around an Ethereum contract.
type SwarmwageEscrowRaw struct {
	Contract *SwarmwageEscrow // Generic contract binding to access the raw methods on
}

// SwarmwageEscrowCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SwarmwageEscrowCallerRaw struct {
	Contract *SwarmwageEscrowCaller // Generic read-only contract binding to access the raw methods on
}

// SwarmwageEscrowTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SwarmwageEscrowTransactorRaw struct {
	Contract *SwarmwageEscrowTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSwarmwageEscrow creates a new instance of SwarmwageEscrow, bound to a specific deployed contract.
func NewSwarmwageEscrow(address common.Address, backend bind.ContractBackend) (*SwarmwageEscrow, error) {
	contract, err := bindSwarmwageEscrow(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrow{SwarmwageEscrowCaller: SwarmwageEscrowCaller{contract: contract}, SwarmwageEscrowTransactor: SwarmwageEscrowTransactor{contract: contract}, SwarmwageEscrowFilterer: SwarmwageEscrowFilterer{contract: contract}}, nil
}

// NewSwarmwageEscrowCaller creates a new read-only instance of SwarmwageEscrow, bound to a specific deployed contract.
func NewSwarmwageEscrowCaller(address common.Address, caller bind.ContractCaller) (*SwarmwageEscrowCaller, error) {
	contract, err := bindSwarmwageEscrow(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowCaller{contract: contract}, nil
}

// NewSwarmwageEscrowTransactor creates a new write-only instance of SwarmwageEscrow, bound to a specific deployed contract.
func NewSwarmwageEscrowTransactor(address common.Address, transactor bind.ContractTransactor) (*SwarmwageEscrowTransactor, error) {
	contract, err := bindSwarmwageEscrow(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowTransactor{contract: contract}, nil
}

// NewSwarmwageEscrowFilterer creates a new log filterer instance of SwarmwageEscrow, bound to a specific deployed contract.
func NewSwarmwageEscrowFilterer(address common.Address, filterer bind.ContractFilterer) (*SwarmwageEscrowFilterer, error) {
	contract, err := bindSwarmwageEscrow(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowFilterer{contract: contract}, nil
}

// bindSwarmwageEscrow binds a generic wrapper to an already deployed contract.
func bindSwarmwageEscrow(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SwarmwageEscrowMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SwarmwageEscrow *SwarmwageEscrowRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SwarmwageEscrow.Contract.SwarmwageEscrowCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SwarmwageEscrow *SwarmwageEscrowRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.SwarmwageEscrowTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SwarmwageEscrow *SwarmwageEscrowRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.SwarmwageEscrowTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SwarmwageEscrow *SwarmwageEscrowCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SwarmwageEscrow.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SwarmwageEscrow *SwarmwageEscrowTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SwarmwageEscrow *SwarmwageEscrowTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.contract.Transact(opts, method, params...)
}

// CANCELLED is a free data retrieval call binding the contract method 0xae71dcdf.
//
// Solidity: function CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) CANCELLED(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "CANCELLED")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// CANCELLED is a free data retrieval call binding the contract method 0xae71dcdf.
//
// Solidity: function CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) CANCELLED() (uint8, error) {
	return _SwarmwageEscrow.Contract.CANCELLED(&_SwarmwageEscrow.CallOpts)
}

// CANCELLED is a free data retrieval call binding the contract method 0xae71dcdf.
//
// Solidity: function CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) CANCELLED() (uint8, error) {
	return _SwarmwageEscrow.Contract.CANCELLED(&_SwarmwageEscrow.CallOpts)
}

// LOCKTYPEHASH is a free data retrieval call binding the contract method 0xb2924620.
//
// Solidity: function LOCK_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) LOCKTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "LOCK_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// LOCKTYPEHASH is a free data retrieval call binding the contract method 0xb2924620.
//
// Solidity: function LOCK_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) LOCKTYPEHASH() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.LOCKTYPEHASH(&_SwarmwageEscrow.CallOpts)
}

// LOCKTYPEHASH is a free data retrieval call binding the contract method 0xb2924620.
//
// Solidity: function LOCK_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) LOCKTYPEHASH() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.LOCKTYPEHASH(&_SwarmwageEscrow.CallOpts)
}

// OPEN is a free data retrieval call binding the contract method 0xd1b9c430.
//
// Solidity: function OPEN() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) OPEN(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "OPEN")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// OPEN is a free data retrieval call binding the contract method 0xd1b9c430.
//
// Solidity: function OPEN() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) OPEN() (uint8, error) {
	return _SwarmwageEscrow.Contract.OPEN(&_SwarmwageEscrow.CallOpts)
}

// OPEN is a free data retrieval call binding the contract method 0xd1b9c430.
//
// Solidity: function OPEN() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) OPEN() (uint8, error) {
	return _SwarmwageEscrow.Contract.OPEN(&_SwarmwageEscrow.CallOpts)
}

// PAID is a free data retrieval call binding the contract method 0xd31a03c2.
//
// Solidity: function PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) PAID(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "PAID")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// PAID is a free data retrieval call binding the contract method 0xd31a03c2.
//
// Solidity: function PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) PAID() (uint8, error) {
	return _SwarmwageEscrow.Contract.PAID(&_SwarmwageEscrow.CallOpts)
}

// PAID is a free data retrieval call binding the contract method 0xd31a03c2.
//
// Solidity: function PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) PAID() (uint8, error) {
	return _SwarmwageEscrow.Contract.PAID(&_SwarmwageEscrow.CallOpts)
}

// RELEASETYPEHASH is a free data retrieval call binding the contract method 0x0902df91.
//
// Solidity: function RELEASE_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) RELEASETYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "RELEASE_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// RELEASETYPEHASH is a free data retrieval call binding the contract method 0x0902df91.
//
// Solidity: function RELEASE_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) RELEASETYPEHASH() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.RELEASETYPEHASH(&_SwarmwageEscrow.CallOpts)
}

// RELEASETYPEHASH is a free data retrieval call binding the contract method 0x0902df91.
//
// Solidity: function RELEASE_TYPEHASH() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) RELEASETYPEHASH() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.RELEASETYPEHASH(&_SwarmwageEscrow.CallOpts)
}

// SKIPALREADYPAID is a free data retrieval call binding the contract method 0x2f4cb200.
//
// Solidity: function SKIP_ALREADY_PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) SKIPALREADYPAID(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "SKIP_ALREADY_PAID")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// SKIPALREADYPAID is a free data retrieval call binding the contract method 0x2f4cb200.
//
// Solidity: function SKIP_ALREADY_PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) SKIPALREADYPAID() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPALREADYPAID(&_SwarmwageEscrow.CallOpts)
}

// SKIPALREADYPAID is a free data retrieval call binding the contract method 0x2f4cb200.
//
// Solidity: function SKIP_ALREADY_PAID() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) SKIPALREADYPAID() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPALREADYPAID(&_SwarmwageEscrow.CallOpts)
}

// SKIPBADSIGNATURE is a free data retrieval call binding the contract method 0x31acb1d2.
//
// Solidity: function SKIP_BAD_SIGNATURE() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) SKIPBADSIGNATURE(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "SKIP_BAD_SIGNATURE")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// SKIPBADSIGNATURE is a free data retrieval call binding the contract method 0x31acb1d2.
//
// Solidity: function SKIP_BAD_SIGNATURE() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) SKIPBADSIGNATURE() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPBADSIGNATURE(&_SwarmwageEscrow.CallOpts)
}

// SKIPBADSIGNATURE is a free data retrieval call binding the contract method 0x31acb1d2.
//
// Solidity: function SKIP_BAD_SIGNATURE() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) SKIPBADSIGNATURE() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPBADSIGNATURE(&_SwarmwageEscrow.CallOpts)
}

// SKIPCANCELLED is a free data retrieval call binding the contract method 0x76f443cf.
//
// Solidity: function SKIP_CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) SKIPCANCELLED(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "SKIP_CANCELLED")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// SKIPCANCELLED is a free data retrieval call binding the contract method 0x76f443cf.
//
// Solidity: function SKIP_CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) SKIPCANCELLED() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPCANCELLED(&_SwarmwageEscrow.CallOpts)
}

// SKIPCANCELLED is a free data retrieval call binding the contract method 0x76f443cf.
//
// Solidity: function SKIP_CANCELLED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) SKIPCANCELLED() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPCANCELLED(&_SwarmwageEscrow.CallOpts)
}

// SKIPNOTCOVERED is a free data retrieval call binding the contract method 0x9bc87b25.
//
// Solidity: function SKIP_NOT_COVERED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) SKIPNOTCOVERED(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "SKIP_NOT_COVERED")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// SKIPNOTCOVERED is a free data retrieval call binding the contract method 0x9bc87b25.
//
// Solidity: function SKIP_NOT_COVERED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) SKIPNOTCOVERED() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPNOTCOVERED(&_SwarmwageEscrow.CallOpts)
}

// SKIPNOTCOVERED is a free data retrieval call binding the contract method 0x9bc87b25.
//
// Solidity: function SKIP_NOT_COVERED() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) SKIPNOTCOVERED() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPNOTCOVERED(&_SwarmwageEscrow.CallOpts)
}

// SKIPTOOEARLY is a free data retrieval call binding the contract method 0x6d7ee284.
//
// Solidity: function SKIP_TOO_EARLY() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) SKIPTOOEARLY(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "SKIP_TOO_EARLY")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// SKIPTOOEARLY is a free data retrieval call binding the contract method 0x6d7ee284.
//
// Solidity: function SKIP_TOO_EARLY() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowSession) SKIPTOOEARLY() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPTOOEARLY(&_SwarmwageEscrow.CallOpts)
}

// SKIPTOOEARLY is a free data retrieval call binding the contract method 0x6d7ee284.
//
// Solidity: function SKIP_TOO_EARLY() view returns(uint8)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) SKIPTOOEARLY() (uint8, error) {
	return _SwarmwageEscrow.Contract.SKIPTOOEARLY(&_SwarmwageEscrow.CallOpts)
}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) DomainSeparator(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "domainSeparator")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) DomainSeparator() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.DomainSeparator(&_SwarmwageEscrow.CallOpts)
}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) DomainSeparator() ([32]byte, error) {
	return _SwarmwageEscrow.Contract.DomainSeparator(&_SwarmwageEscrow.CallOpts)
}

// Free is a free data retrieval call binding the contract method 0xc9b5bb17.
//
// Solidity: function free(address ) view returns(uint256)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) Free(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "free", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Free is a free data retrieval call binding the contract method 0xc9b5bb17.
//
// Solidity: function free(address ) view returns(uint256)
func (_SwarmwageEscrow *SwarmwageEscrowSession) Free(arg0 common.Address) (*big.Int, error) {
	return _SwarmwageEscrow.Contract.Free(&_SwarmwageEscrow.CallOpts, arg0)
}

// Free is a free data retrieval call binding the contract method 0xc9b5bb17.
//
// Solidity: function free(address ) view returns(uint256)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) Free(arg0 common.Address) (*big.Int, error) {
	return _SwarmwageEscrow.Contract.Free(&_SwarmwageEscrow.CallOpts, arg0)
}

// HashLock is a free data retrieval call binding the contract method 0x7a3b6365.
//
// Solidity: function hashLock(bytes32 jobId, address buyer, address seller, uint256 amount, uint64 notBefore) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) HashLock(opts *bind.CallOpts, jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int, notBefore uint64) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "hashLock", jobId, buyer, seller, amount, notBefore)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// HashLock is a free data retrieval call binding the contract method 0x7a3b6365.
//
// Solidity: function hashLock(bytes32 jobId, address buyer, address seller, uint256 amount, uint64 notBefore) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) HashLock(jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int, notBefore uint64) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.HashLock(&_SwarmwageEscrow.CallOpts, jobId, buyer, seller, amount, notBefore)
}

// HashLock is a free data retrieval call binding the contract method 0x7a3b6365.
//
// Solidity: function hashLock(bytes32 jobId, address buyer, address seller, uint256 amount, uint64 notBefore) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) HashLock(jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int, notBefore uint64) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.HashLock(&_SwarmwageEscrow.CallOpts, jobId, buyer, seller, amount, notBefore)
}

// HashRelease is a free data retrieval call binding the contract method 0xa44dfc99.
//
// Solidity: function hashRelease(bytes32 jobId, address buyer, address seller, uint256 amount) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) HashRelease(opts *bind.CallOpts, jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "hashRelease", jobId, buyer, seller, amount)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// HashRelease is a free data retrieval call binding the contract method 0xa44dfc99.
//
// Solidity: function hashRelease(bytes32 jobId, address buyer, address seller, uint256 amount) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) HashRelease(jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.HashRelease(&_SwarmwageEscrow.CallOpts, jobId, buyer, seller, amount)
}

// HashRelease is a free data retrieval call binding the contract method 0xa44dfc99.
//
// Solidity: function hashRelease(bytes32 jobId, address buyer, address seller, uint256 amount) view returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) HashRelease(jobId [32]byte, buyer common.Address, seller common.Address, amount *big.Int) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.HashRelease(&_SwarmwageEscrow.CallOpts, jobId, buyer, seller, amount)
}

// Job is a free data retrieval call binding the contract method 0x05c27d16.
//
// Solidity: function job(address buyer, address seller, bytes32 jobId) view returns(uint8 state, uint64 cancelledAt)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) Job(opts *bind.CallOpts, buyer common.Address, seller common.Address, jobId [32]byte) (struct {
	State       uint8
	CancelledAt uint64
}, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "job", buyer, seller, jobId)

	outstruct := new(struct {
		State       uint8
		CancelledAt uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.State = *abi.ConvertType(out[0], new(uint8)).(*uint8)
	outstruct.CancelledAt = *abi.ConvertType(out[1], new(uint64)).(*uint64)

	return *outstruct, err

}

// Job is a free data retrieval call binding the contract method 0x05c27d16.
//
// Solidity: function job(address buyer, address seller, bytes32 jobId) view returns(uint8 state, uint64 cancelledAt)
func (_SwarmwageEscrow *SwarmwageEscrowSession) Job(buyer common.Address, seller common.Address, jobId [32]byte) (struct {
	State       uint8
	CancelledAt uint64
}, error) {
	return _SwarmwageEscrow.Contract.Job(&_SwarmwageEscrow.CallOpts, buyer, seller, jobId)
}

// Job is a free data retrieval call binding the contract method 0x05c27d16.
//
// Solidity: function job(address buyer, address seller, bytes32 jobId) view returns(uint8 state, uint64 cancelledAt)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) Job(buyer common.Address, seller common.Address, jobId [32]byte) (struct {
	State       uint8
	CancelledAt uint64
}, error) {
	return _SwarmwageEscrow.Contract.Job(&_SwarmwageEscrow.CallOpts, buyer, seller, jobId)
}

// JobKey is a free data retrieval call binding the contract method 0xda520d59.
//
// Solidity: function jobKey(address buyer, address seller, bytes32 jobId) pure returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) JobKey(opts *bind.CallOpts, buyer common.Address, seller common.Address, jobId [32]byte) ([32]byte, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "jobKey", buyer, seller, jobId)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// JobKey is a free data retrieval call binding the contract method 0xda520d59.
//
// Solidity: function jobKey(address buyer, address seller, bytes32 jobId) pure returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowSession) JobKey(buyer common.Address, seller common.Address, jobId [32]byte) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.JobKey(&_SwarmwageEscrow.CallOpts, buyer, seller, jobId)
}

// JobKey is a free data retrieval call binding the contract method 0xda520d59.
//
// Solidity: function jobKey(address buyer, address seller, bytes32 jobId) pure returns(bytes32)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) JobKey(buyer common.Address, seller common.Address, jobId [32]byte) ([32]byte, error) {
	return _SwarmwageEscrow.Contract.JobKey(&_SwarmwageEscrow.CallOpts, buyer, seller, jobId)
}

// Line is a free data retrieval call binding the contract method 0x7b5473c3.
//
// Solidity: function line(address buyer, address seller) view returns(uint256 balance, uint256 withdrawing, uint64 withdrawAt)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) Line(opts *bind.CallOpts, buyer common.Address, seller common.Address) (struct {
	Balance     *big.Int
	Withdrawing *big.Int
	WithdrawAt  uint64
}, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "line", buyer, seller)

	outstruct := new(struct {
		Balance     *big.Int
		Withdrawing *big.Int
		WithdrawAt  uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Balance = *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)
	outstruct.Withdrawing = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)
	outstruct.WithdrawAt = *abi.ConvertType(out[2], new(uint64)).(*uint64)

	return *outstruct, err

}

// Line is a free data retrieval call binding the contract method 0x7b5473c3.
//
// Solidity: function line(address buyer, address seller) view returns(uint256 balance, uint256 withdrawing, uint64 withdrawAt)
func (_SwarmwageEscrow *SwarmwageEscrowSession) Line(buyer common.Address, seller common.Address) (struct {
	Balance     *big.Int
	Withdrawing *big.Int
	WithdrawAt  uint64
}, error) {
	return _SwarmwageEscrow.Contract.Line(&_SwarmwageEscrow.CallOpts, buyer, seller)
}

// Line is a free data retrieval call binding the contract method 0x7b5473c3.
//
// Solidity: function line(address buyer, address seller) view returns(uint256 balance, uint256 withdrawing, uint64 withdrawAt)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) Line(buyer common.Address, seller common.Address) (struct {
	Balance     *big.Int
	Withdrawing *big.Int
	WithdrawAt  uint64
}, error) {
	return _SwarmwageEscrow.Contract.Line(&_SwarmwageEscrow.CallOpts, buyer, seller)
}

// Notice is a free data retrieval call binding the contract method 0x9c94e6c6.
//
// Solidity: function notice() view returns(uint64)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) Notice(opts *bind.CallOpts) (uint64, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "notice")

	if err != nil {
		return *new(uint64), err
	}

	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)

	return out0, err

}

// Notice is a free data retrieval call binding the contract method 0x9c94e6c6.
//
// Solidity: function notice() view returns(uint64)
func (_SwarmwageEscrow *SwarmwageEscrowSession) Notice() (uint64, error) {
	return _SwarmwageEscrow.Contract.Notice(&_SwarmwageEscrow.CallOpts)
}

// Notice is a free data retrieval call binding the contract method 0x9c94e6c6.
//
// Solidity: function notice() view returns(uint64)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) Notice() (uint64, error) {
	return _SwarmwageEscrow.Contract.Notice(&_SwarmwageEscrow.CallOpts)
}

// Token is a free data retrieval call binding the contract method 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (_SwarmwageEscrow *SwarmwageEscrowCaller) Token(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _SwarmwageEscrow.contract.Call(opts, &out, "token")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Token is a free data retrieval call binding the contract method 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (_SwarmwageEscrow *SwarmwageEscrowSession) Token() (common.Address, error) {
	return _SwarmwageEscrow.Contract.Token(&_SwarmwageEscrow.CallOpts)
}

// Token is a free data retrieval call binding the contract method 0xfc0c546a.
//
// Solidity: function token() view returns(address)
func (_SwarmwageEscrow *SwarmwageEscrowCallerSession) Token() (common.Address, error) {
	return _SwarmwageEscrow.Contract.Token(&_SwarmwageEscrow.CallOpts)
}

// Allocate is a paid mutator transaction binding the contract method 0xb78b52df.
//
// Solidity: function allocate(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) Allocate(opts *bind.TransactOpts, seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "allocate", seller, amount)
}

// Allocate is a paid mutator transaction binding the contract method 0xb78b52df.
//
// Solidity: function allocate(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) Allocate(seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Allocate(&_SwarmwageEscrow.TransactOpts, seller, amount)
}

// Allocate is a paid mutator transaction binding the contract method 0xb78b52df.
//
// Solidity: function allocate(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) Allocate(seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Allocate(&_SwarmwageEscrow.TransactOpts, seller, amount)
}

// Cancel is a paid mutator transaction binding the contract method 0xbd848476.
//
// Solidity: function cancel(address seller, bytes32[] jobIds) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) Cancel(opts *bind.TransactOpts, seller common.Address, jobIds [][32]byte) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "cancel", seller, jobIds)
}

// Cancel is a paid mutator transaction binding the contract method 0xbd848476.
//
// Solidity: function cancel(address seller, bytes32[] jobIds) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) Cancel(seller common.Address, jobIds [][32]byte) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Cancel(&_SwarmwageEscrow.TransactOpts, seller, jobIds)
}

// Cancel is a paid mutator transaction binding the contract method 0xbd848476.
//
// Solidity: function cancel(address seller, bytes32[] jobIds) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) Cancel(seller common.Address, jobIds [][32]byte) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Cancel(&_SwarmwageEscrow.TransactOpts, seller, jobIds)
}

// Deposit is a paid mutator transaction binding the contract method 0xb6b55f25.
//
// Solidity: function deposit(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) Deposit(opts *bind.TransactOpts, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "deposit", amount)
}

// Deposit is a paid mutator transaction binding the contract method 0xb6b55f25.
//
// Solidity: function deposit(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) Deposit(amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Deposit(&_SwarmwageEscrow.TransactOpts, amount)
}

// Deposit is a paid mutator transaction binding the contract method 0xb6b55f25.
//
// Solidity: function deposit(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) Deposit(amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Deposit(&_SwarmwageEscrow.TransactOpts, amount)
}

// Redeem is a paid mutator transaction binding the contract method 0xa5926669.
//
// Solidity: function redeem(address seller, (bool,bytes32,address,uint256,uint64,bytes)[] vs) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) Redeem(opts *bind.TransactOpts, seller common.Address, vs []SwarmwageEscrowVoucher) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "redeem", seller, vs)
}

// Redeem is a paid mutator transaction binding the contract method 0xa5926669.
//
// Solidity: function redeem(address seller, (bool,bytes32,address,uint256,uint64,bytes)[] vs) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) Redeem(seller common.Address, vs []SwarmwageEscrowVoucher) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Redeem(&_SwarmwageEscrow.TransactOpts, seller, vs)
}

// Redeem is a paid mutator transaction binding the contract method 0xa5926669.
//
// Solidity: function redeem(address seller, (bool,bytes32,address,uint256,uint64,bytes)[] vs) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) Redeem(seller common.Address, vs []SwarmwageEscrowVoucher) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Redeem(&_SwarmwageEscrow.TransactOpts, seller, vs)
}

// RequestWithdraw is a paid mutator transaction binding the contract method 0x397a1b28.
//
// Solidity: function requestWithdraw(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) RequestWithdraw(opts *bind.TransactOpts, seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "requestWithdraw", seller, amount)
}

// RequestWithdraw is a paid mutator transaction binding the contract method 0x397a1b28.
//
// Solidity: function requestWithdraw(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) RequestWithdraw(seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.RequestWithdraw(&_SwarmwageEscrow.TransactOpts, seller, amount)
}

// RequestWithdraw is a paid mutator transaction binding the contract method 0x397a1b28.
//
// Solidity: function requestWithdraw(address seller, uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) RequestWithdraw(seller common.Address, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.RequestWithdraw(&_SwarmwageEscrow.TransactOpts, seller, amount)
}

// Withdraw is a paid mutator transaction binding the contract method 0x51cff8d9.
//
// Solidity: function withdraw(address seller) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) Withdraw(opts *bind.TransactOpts, seller common.Address) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "withdraw", seller)
}

// Withdraw is a paid mutator transaction binding the contract method 0x51cff8d9.
//
// Solidity: function withdraw(address seller) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) Withdraw(seller common.Address) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Withdraw(&_SwarmwageEscrow.TransactOpts, seller)
}

// Withdraw is a paid mutator transaction binding the contract method 0x51cff8d9.
//
// Solidity: function withdraw(address seller) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) Withdraw(seller common.Address) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.Withdraw(&_SwarmwageEscrow.TransactOpts, seller)
}

// WithdrawFree is a paid mutator transaction binding the contract method 0xc01ee5ac.
//
// Solidity: function withdrawFree(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactor) WithdrawFree(opts *bind.TransactOpts, amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.contract.Transact(opts, "withdrawFree", amount)
}

// WithdrawFree is a paid mutator transaction binding the contract method 0xc01ee5ac.
//
// Solidity: function withdrawFree(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowSession) WithdrawFree(amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.WithdrawFree(&_SwarmwageEscrow.TransactOpts, amount)
}

// WithdrawFree is a paid mutator transaction binding the contract method 0xc01ee5ac.
//
// Solidity: function withdrawFree(uint256 amount) returns()
func (_SwarmwageEscrow *SwarmwageEscrowTransactorSession) WithdrawFree(amount *big.Int) (*types.Transaction, error) {
	return _SwarmwageEscrow.Contract.WithdrawFree(&_SwarmwageEscrow.TransactOpts, amount)
}

// SwarmwageEscrowAllocatedIterator is returned from FilterAllocated and is used to iterate over the raw logs and unpacked data for Allocated events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowAllocatedIterator struct {
	Event *SwarmwageEscrowAllocated // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowAllocatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowAllocated)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowAllocated)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowAllocatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowAllocatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowAllocated represents a Allocated event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowAllocated struct {
	Buyer  common.Address
	Seller common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterAllocated is a free log retrieval operation binding the contract event 0xbe8864d3a5ed38c5e26974fcc84f97fd03d55f6b774d46b844205d5f7b6b5c0b.
//
// Solidity: event Allocated(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterAllocated(opts *bind.FilterOpts, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowAllocatedIterator, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Allocated", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowAllocatedIterator{contract: _SwarmwageEscrow.contract, event: "Allocated", logs: logs, sub: sub}, nil
}

// WatchAllocated is a free log subscription operation binding the contract event 0xbe8864d3a5ed38c5e26974fcc84f97fd03d55f6b774d46b844205d5f7b6b5c0b.
//
// Solidity: event Allocated(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchAllocated(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowAllocated, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Allocated", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowAllocated)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Allocated", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseAllocated is a log parse operation binding the contract event 0xbe8864d3a5ed38c5e26974fcc84f97fd03d55f6b774d46b844205d5f7b6b5c0b.
//
// Solidity: event Allocated(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseAllocated(log types.Log) (*SwarmwageEscrowAllocated, error) {
	event := new(SwarmwageEscrowAllocated)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Allocated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowCancelledIterator is returned from FilterCancelled and is used to iterate over the raw logs and unpacked data for Cancelled events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowCancelledIterator struct {
	Event *SwarmwageEscrowCancelled // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowCancelledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowCancelled)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowCancelled)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowCancelledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowCancelledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowCancelled represents a Cancelled event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowCancelled struct {
	JobId  [32]byte
	Buyer  common.Address
	Seller common.Address
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterCancelled is a free log retrieval operation binding the contract event 0xfc75bf14026522f28058fe998b811398067a73557949d49931ff31f94efdd65c.
//
// Solidity: event Cancelled(bytes32 indexed jobId, address indexed buyer, address indexed seller)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterCancelled(opts *bind.FilterOpts, jobId [][32]byte, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowCancelledIterator, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Cancelled", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowCancelledIterator{contract: _SwarmwageEscrow.contract, event: "Cancelled", logs: logs, sub: sub}, nil
}

// WatchCancelled is a free log subscription operation binding the contract event 0xfc75bf14026522f28058fe998b811398067a73557949d49931ff31f94efdd65c.
//
// Solidity: event Cancelled(bytes32 indexed jobId, address indexed buyer, address indexed seller)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchCancelled(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowCancelled, jobId [][32]byte, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Cancelled", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowCancelled)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Cancelled", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseCancelled is a log parse operation binding the contract event 0xfc75bf14026522f28058fe998b811398067a73557949d49931ff31f94efdd65c.
//
// Solidity: event Cancelled(bytes32 indexed jobId, address indexed buyer, address indexed seller)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseCancelled(log types.Log) (*SwarmwageEscrowCancelled, error) {
	event := new(SwarmwageEscrowCancelled)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Cancelled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowDepositedIterator is returned from FilterDeposited and is used to iterate over the raw logs and unpacked data for Deposited events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowDepositedIterator struct {
	Event *SwarmwageEscrowDeposited // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowDepositedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowDeposited)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowDeposited)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowDepositedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowDepositedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowDeposited represents a Deposited event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowDeposited struct {
	Buyer  common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterDeposited is a free log retrieval operation binding the contract event 0x2da466a7b24304f47e87fa2e1e5a81b9831ce54fec19055ce277ca2f39ba42c4.
//
// Solidity: event Deposited(address indexed buyer, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterDeposited(opts *bind.FilterOpts, buyer []common.Address) (*SwarmwageEscrowDepositedIterator, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Deposited", buyerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowDepositedIterator{contract: _SwarmwageEscrow.contract, event: "Deposited", logs: logs, sub: sub}, nil
}

// WatchDeposited is a free log subscription operation binding the contract event 0x2da466a7b24304f47e87fa2e1e5a81b9831ce54fec19055ce277ca2f39ba42c4.
//
// Solidity: event Deposited(address indexed buyer, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchDeposited(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowDeposited, buyer []common.Address) (event.Subscription, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Deposited", buyerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowDeposited)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Deposited", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseDeposited is a log parse operation binding the contract event 0x2da466a7b24304f47e87fa2e1e5a81b9831ce54fec19055ce277ca2f39ba42c4.
//
// Solidity: event Deposited(address indexed buyer, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseDeposited(log types.Log) (*SwarmwageEscrowDeposited, error) {
	event := new(SwarmwageEscrowDeposited)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Deposited", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowPaidIterator is returned from FilterPaid and is used to iterate over the raw logs and unpacked data for Paid events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowPaidIterator struct {
	Event *SwarmwageEscrowPaid // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowPaidIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowPaid)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowPaid)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowPaidIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowPaidIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowPaid represents a Paid event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowPaid struct {
	JobId    [32]byte
	Buyer    common.Address
	Seller   common.Address
	Amount   *big.Int
	Released bool
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterPaid is a free log retrieval operation binding the contract event 0x0918d2e09dd09d103511027ca55c43928dbe3103fdd886ef80e7074201d24f80.
//
// Solidity: event Paid(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint256 amount, bool released)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterPaid(opts *bind.FilterOpts, jobId [][32]byte, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowPaidIterator, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Paid", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowPaidIterator{contract: _SwarmwageEscrow.contract, event: "Paid", logs: logs, sub: sub}, nil
}

// WatchPaid is a free log subscription operation binding the contract event 0x0918d2e09dd09d103511027ca55c43928dbe3103fdd886ef80e7074201d24f80.
//
// Solidity: event Paid(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint256 amount, bool released)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchPaid(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowPaid, jobId [][32]byte, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Paid", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowPaid)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Paid", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParsePaid is a log parse operation binding the contract event 0x0918d2e09dd09d103511027ca55c43928dbe3103fdd886ef80e7074201d24f80.
//
// Solidity: event Paid(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint256 amount, bool released)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParsePaid(log types.Log) (*SwarmwageEscrowPaid, error) {
	event := new(SwarmwageEscrowPaid)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Paid", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowSkippedIterator is returned from FilterSkipped and is used to iterate over the raw logs and unpacked data for Skipped events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowSkippedIterator struct {
	Event *SwarmwageEscrowSkipped // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowSkippedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowSkipped)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowSkipped)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowSkippedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowSkippedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowSkipped represents a Skipped event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowSkipped struct {
	JobId  [32]byte
	Buyer  common.Address
	Seller common.Address
	Reason uint8
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterSkipped is a free log retrieval operation binding the contract event 0x6ebe9dc0661cf73d3b3a7bc00e1fbb344bc0d6217bbc5c41707eee14231760dc.
//
// Solidity: event Skipped(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint8 reason)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterSkipped(opts *bind.FilterOpts, jobId [][32]byte, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowSkippedIterator, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Skipped", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowSkippedIterator{contract: _SwarmwageEscrow.contract, event: "Skipped", logs: logs, sub: sub}, nil
}

// WatchSkipped is a free log subscription operation binding the contract event 0x6ebe9dc0661cf73d3b3a7bc00e1fbb344bc0d6217bbc5c41707eee14231760dc.
//
// Solidity: event Skipped(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint8 reason)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchSkipped(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowSkipped, jobId [][32]byte, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var jobIdRule []interface{}
	for _, jobIdItem := range jobId {
		jobIdRule = append(jobIdRule, jobIdItem)
	}
	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Skipped", jobIdRule, buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowSkipped)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Skipped", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseSkipped is a log parse operation binding the contract event 0x6ebe9dc0661cf73d3b3a7bc00e1fbb344bc0d6217bbc5c41707eee14231760dc.
//
// Solidity: event Skipped(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint8 reason)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseSkipped(log types.Log) (*SwarmwageEscrowSkipped, error) {
	event := new(SwarmwageEscrowSkipped)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Skipped", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowWithdrawRequestedIterator is returned from FilterWithdrawRequested and is used to iterate over the raw logs and unpacked data for WithdrawRequested events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowWithdrawRequestedIterator struct {
	Event *SwarmwageEscrowWithdrawRequested // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowWithdrawRequestedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowWithdrawRequested)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowWithdrawRequested)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowWithdrawRequestedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowWithdrawRequestedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowWithdrawRequested represents a WithdrawRequested event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowWithdrawRequested struct {
	Buyer   common.Address
	Seller  common.Address
	Amount  *big.Int
	ReadyAt uint64
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterWithdrawRequested is a free log retrieval operation binding the contract event 0x37cfe096bfb86f6d34b6486bcaf1c1513cb7ad34ec77e1cb2c717d6dd0960434.
//
// Solidity: event WithdrawRequested(address indexed buyer, address indexed seller, uint256 amount, uint64 readyAt)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterWithdrawRequested(opts *bind.FilterOpts, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowWithdrawRequestedIterator, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "WithdrawRequested", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowWithdrawRequestedIterator{contract: _SwarmwageEscrow.contract, event: "WithdrawRequested", logs: logs, sub: sub}, nil
}

// WatchWithdrawRequested is a free log subscription operation binding the contract event 0x37cfe096bfb86f6d34b6486bcaf1c1513cb7ad34ec77e1cb2c717d6dd0960434.
//
// Solidity: event WithdrawRequested(address indexed buyer, address indexed seller, uint256 amount, uint64 readyAt)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchWithdrawRequested(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowWithdrawRequested, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "WithdrawRequested", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowWithdrawRequested)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "WithdrawRequested", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseWithdrawRequested is a log parse operation binding the contract event 0x37cfe096bfb86f6d34b6486bcaf1c1513cb7ad34ec77e1cb2c717d6dd0960434.
//
// Solidity: event WithdrawRequested(address indexed buyer, address indexed seller, uint256 amount, uint64 readyAt)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseWithdrawRequested(log types.Log) (*SwarmwageEscrowWithdrawRequested, error) {
	event := new(SwarmwageEscrowWithdrawRequested)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "WithdrawRequested", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SwarmwageEscrowWithdrawnIterator is returned from FilterWithdrawn and is used to iterate over the raw logs and unpacked data for Withdrawn events raised by the SwarmwageEscrow contract.
type SwarmwageEscrowWithdrawnIterator struct {
	Event *SwarmwageEscrowWithdrawn // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SwarmwageEscrowWithdrawnIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SwarmwageEscrowWithdrawn)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SwarmwageEscrowWithdrawn)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SwarmwageEscrowWithdrawnIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SwarmwageEscrowWithdrawnIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SwarmwageEscrowWithdrawn represents a Withdrawn event raised by the SwarmwageEscrow contract.
type SwarmwageEscrowWithdrawn struct {
	Buyer  common.Address
	Seller common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterWithdrawn is a free log retrieval operation binding the contract event 0xd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb.
//
// Solidity: event Withdrawn(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) FilterWithdrawn(opts *bind.FilterOpts, buyer []common.Address, seller []common.Address) (*SwarmwageEscrowWithdrawnIterator, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.FilterLogs(opts, "Withdrawn", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return &SwarmwageEscrowWithdrawnIterator{contract: _SwarmwageEscrow.contract, event: "Withdrawn", logs: logs, sub: sub}, nil
}

// WatchWithdrawn is a free log subscription operation binding the contract event 0xd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb.
//
// Solidity: event Withdrawn(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) WatchWithdrawn(opts *bind.WatchOpts, sink chan<- *SwarmwageEscrowWithdrawn, buyer []common.Address, seller []common.Address) (event.Subscription, error) {

	var buyerRule []interface{}
	for _, buyerItem := range buyer {
		buyerRule = append(buyerRule, buyerItem)
	}
	var sellerRule []interface{}
	for _, sellerItem := range seller {
		sellerRule = append(sellerRule, sellerItem)
	}

	logs, sub, err := _SwarmwageEscrow.contract.WatchLogs(opts, "Withdrawn", buyerRule, sellerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SwarmwageEscrowWithdrawn)
				if err := _SwarmwageEscrow.contract.UnpackLog(event, "Withdrawn", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseWithdrawn is a log parse operation binding the contract event 0xd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb.
//
// Solidity: event Withdrawn(address indexed buyer, address indexed seller, uint256 amount)
func (_SwarmwageEscrow *SwarmwageEscrowFilterer) ParseWithdrawn(log types.Log) (*SwarmwageEscrowWithdrawn, error) {
	event := new(SwarmwageEscrowWithdrawn)
	if err := _SwarmwageEscrow.contract.UnpackLog(event, "Withdrawn", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
