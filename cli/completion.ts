import { type Command, Help } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What can follow a command: its visible subcommands and its options' long (else short) flags. */
export interface CompletionNode {
  path: string;
  words: string[];
}

/** Every visible command of the program with what can follow it, read from the program itself. */
export function completionTree(program: Command): CompletionNode[] {
  const help = new Help();
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string) => {
    const subcommands = help.visibleCommands(command);
    const flags = help.visibleOptions(command).map((option) => option.long ?? option.short ?? '');
    nodes.push({ path, words: [...subcommands.map((sub) => sub.name()), ...flags.filter(Boolean)] });
    for (const sub of subcommands) if (sub.name() !== 'help') visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return nodes;
}

/** `case` branches of a shell function answering the words that follow a command path. */
function caseBranches(nodes: CompletionNode[], branch: (node: CompletionNode) => string): string {
  return nodes.map(branch).join('\n');
}

function bashScript(name: string, nodes: CompletionNode[]): string {
  const words = caseBranches(nodes, (node) => `    '${node.path}') echo '${node.words.join(' ')}' ;;`);
  return `# ${name} completion for bash: eval "$(${name} completion bash)", or save it under bash-completion's completions dir
_${name}_words() {
  case "$1" in
${words}
  esac
}
_${name}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) continue ;; esac
    next="\${cmdpath:+$cmdpath }\${COMP_WORDS[i]}"
    [ -n "$(_${name}_words "$next")" ] && cmdpath="$next"
  done
  COMPREPLY=($(compgen -W "$(_${name}_words "$cmdpath")" -- "$cur"))
}
complete -F _${name} ${name}
`;
}

function zshScript(name: string, nodes: CompletionNode[]): string {
  const words = caseBranches(nodes, (node) => `    '${node.path}') print -r -- '${node.words.join(' ')}' ;;`);
  return `#compdef ${name}
# ${name} completion for zsh: eval "$(${name} completion zsh)", or save it as _${name} in a directory of $fpath
_${name}_words() {
  case "$1" in
${words}
  esac
}
_${name}() {
  local cmdpath="" next w
  for w in "\${(@)words[2,CURRENT-1]}"; do
    [[ $w == -* ]] && continue
    next="\${cmdpath:+$cmdpath }$w"
    [[ -n "$(_${name}_words "$next")" ]] && cmdpath="$next"
  done
  compadd -- \${=$(_${name}_words "$cmdpath")}
}
if (( $+functions[compdef] )); then compdef _${name} ${name}; fi
`;
}

function fishScript(name: string, nodes: CompletionNode[]): string {
  const words = caseBranches(
    nodes,
    (node) => `    case '${node.path}'\n        printf '%s\\n' ${node.words.join(' ')}`,
  );
  return `# ${name} completion for fish: ${name} completion fish > ~/.config/fish/completions/${name}.fish
function __${name}_words
    switch "$argv[1]"
${words}
    end
end
function __${name}_complete
    set -l cmdpath ''
    for w in (commandline -opc)[2..-1]
        string match -q -- '-*' $w; and continue
        set -l next (string trim -- "$cmdpath $w")
        if test (count (__${name}_words $next)) -gt 0
            set cmdpath $next
        end
    end
    __${name}_words $cmdpath
end
complete -c ${name} -f -a '(__${name}_complete)'
`;
}

/** The completion script of `shell` for the program's command tree. */
export function completionScript(program: Command, shell: Shell): string {
  const nodes = completionTree(program);
  const scripts = { bash: bashScript, zsh: zshScript, fish: fishScript };
  return scripts[shell](program.name(), nodes);
}
