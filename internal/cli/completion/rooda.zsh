#compdef rooda
# zsh completion for rooda: put it in a directory of $fpath as _rooda
# (mkdir -p ~/.zfunc && rooda completion zsh > ~/.zfunc/_rooda, with
# fpath=(~/.zfunc $fpath) in ~/.zshrc before compinit), or source it after
# compinit.
# Adapted from urfave/cli v2's autocomplete/zsh_autocomplete: rooda itself
# answers "rooda … --generate-bash-completion" with the words that may come next.

_rooda_zsh_complete() {
  local -a opts asked
  local cur=${words[CURRENT]}
  # The words before the cursor, unquoted as the shell would pass them:
  # urfave/cli's script took the line's last word, so a word completed in
  # the middle of the line was completed as if it were the last one.
  asked=("${(@Q)words[1,CURRENT-1]}")
  if [[ "$cur" == "-"* ]]; then
    asked+=("$cur")
  fi
  opts=("${(@f)$("${asked[@]}" --generate-bash-completion 2>/dev/null)}")

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
