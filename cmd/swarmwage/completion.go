package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts ask the binary itself for the candidates, through
// urfave/cli's hidden --generate-bash-completion flag, so they complete the
// commands and flags of the binary that runs, whatever its version. They do
// not eval the command line. fish gets the static script urfave/cli writes
// from the command tree.
const bashCompletion = `# bash completion for swarmwage; load it with:
#   source <(swarmwage completion bash)
# or save it as /etc/bash_completion.d/swarmwage (or
# ~/.local/share/bash-completion/completions/swarmwage).
_swarmwage_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ "$cur" == -* ]]; then
    words+=("$cur")
  fi
  local IFS=$'\n'
  local -a opts
  opts=($("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null))
  COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
  if [[ ${#COMPREPLY[@]} -eq 0 ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -o bashdefault -o default -F _swarmwage_complete swarmwage
`

const zshCompletion = `#compdef swarmwage
# zsh completion for swarmwage; load it with:
#   source <(swarmwage completion zsh)
# or save it as _swarmwage in a directory of $fpath.
_swarmwage() {
  local -a opts
  local cur=${words[CURRENT]}
  local -a args=("${(@)words[2,CURRENT-1]}")
  if [[ "$cur" == -* ]]; then
    args+=("$cur")
  fi
  opts=("${(@f)$(${words[1]} "${(@)args}" --generate-bash-completion 2>/dev/null)}")
  if [[ -n "${opts[1]}" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
if [[ "${funcstack[1]}" == "_swarmwage" ]]; then
  _swarmwage "$@"
else
  compdef _swarmwage swarmwage
fi
`

// completionShells are the shells 'completion' writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that completes swarmwage's commands and flags. Load it in the
current shell, or install it:

  bash:  source <(swarmwage completion bash)
         swarmwage completion bash > ~/.local/share/bash-completion/completions/swarmwage
  zsh:   source <(swarmwage completion zsh)
         swarmwage completion zsh > "${fpath[1]}/_swarmwage"
  fish:  swarmwage completion fish | source
         swarmwage completion fish > ~/.config/fish/completions/swarmwage.fish`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("completion needs one shell: %s", strings.Join(completionShells, ", "))
			}
			script, err := completionScript(c.App, c.Args().First())
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

// completionScript is the completion script of app for shell.
func completionScript(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return bashCompletion, nil
	case "zsh":
		return zshCompletion, nil
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return "", fmt.Errorf("write the fish completion: %w", err)
		}
		return s, nil
	}
	return "", usageErrf("completion %q: want one of %s", shell, strings.Join(completionShells, ", "))
}
