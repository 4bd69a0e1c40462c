#compdef rooda
# zsh completion for rooda: put it in a directory of $fpath as _rooda
# (rooda completion zsh > "${fpath[1]}/_rooda"), or source it after compinit.
# Adapted from urfave/cli v2's autocomplete/zsh_autocomplete: rooda itself
# answers "rooda … --generate-bash-completion" with the words that may come next.

_rooda_zsh_complete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi

  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}

if [[ "$funcstack[1]" == "_rooda" ]]; then
  _rooda_zsh_complete "$@"
else
  compdef _rooda_zsh_complete rooda
fi
