# bash completion for rooda: source it, or put it in
# ~/.local/share/bash-completion/completions/rooda (rooda completion bash > …).
# Adapted from urfave/cli v2's autocomplete/bash_autocomplete: rooda itself
# answers "rooda … --generate-bash-completion" with the words that may come next.

_rooda_bash_complete() {
  local cur words cword
  COMPREPLY=()
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion -n "=:" || return
  else
    # Without the bash-completion package: the words as bash split them.
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    cur="${COMP_WORDS[COMP_CWORD]}"
  fi
  local requestComp opts
  words=("${words[@]:0:$cword}")
  if [[ "$cur" == "-"* ]]; then
    requestComp="${words[*]} ${cur} --generate-bash-completion"
  else
    requestComp="${words[*]} --generate-bash-completion"
  fi
  opts=$(eval "${requestComp}" 2>/dev/null)
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}

complete -o bashdefault -o default -F _rooda_bash_complete rooda
