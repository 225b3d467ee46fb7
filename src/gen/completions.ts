/**
 * Shell completion scripts, generated from the command tree: the same words
 * commander parses. `npm run gen` writes them to completions/; `svc completion
 * <shell>` prints them. A test regenerates and compares.
 */
import type { Command } from 'commander';

export const shells = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof shells)[number];

/** One command of the tree, as completion needs it. */
export interface CompletionNode {
  /** Words from the root, e.g. ['accounts', 'describe']; [] for svc itself. */
  readonly path: readonly string[];
  /** The other words from the root that reach this command through aliases, e.g. [['accounts', 'list']] for accounts query. */
  readonly aliasPaths: readonly (readonly string[])[];
  readonly summary: string;
  /** The subcommands' names, each followed by its aliases (`query list`): an alias completes as its command does. */
  readonly subcommands: readonly string[];
  readonly flags: readonly string[];
  /** Words completing the command's first argument (resource names, topics). */
  readonly argValues: readonly string[];
}

/**
 * The values an option takes (`-o`: table json …). With `paths` they are those
 * commands' own (`accounts export`: its formats), tried before the values for
 * every command, so an option whose values differ by command completes by the
 * command typed so far.
 */
export interface OptionValues {
  readonly flags: readonly string[];
  readonly values: readonly string[];
  /** Command paths from the root (`accounts export`); absent: every command. Paths the tree lacks are left out. */
  readonly paths?: readonly string[];
}

/** What the tree walk cannot know: values of arguments and options. */
export interface CompletionHints {
  readonly argValues: Readonly<Record<string, readonly string[]>>;
  readonly optionValues: readonly OptionValues[];
}

/** A command's own flags and those of its ancestors (global options work everywhere). */
function flagsOf(cmd: Command): string[] {
  const flags: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    flags.push(...c.options.flatMap((o) => [o.short, o.long]).filter((f): f is string => Boolean(f)));
  }
  return [...new Set([...flags, '-h', '--help'])];
}

/** Walks the command tree depth-first; a command reached through aliases is one node with every path to it. */
export function completionNodes(program: Command, hints: CompletionHints): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (cmd: Command, path: string[], aliasPaths: string[][]): void => {
    nodes.push({
      path,
      aliasPaths,
      summary: cmd.description().split(/[.(;]/)[0]?.trim() ?? '',
      subcommands: cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]),
      flags: flagsOf(cmd),
      argValues: hints.argValues[path.join(' ')] ?? [],
    });
    for (const sub of cmd.commands) {
      const words = [sub.name(), ...sub.aliases()];
      const reached = [path, ...aliasPaths].flatMap((p) => words.map((w) => [...p, w]));
      visit(sub, reached[0] ?? [], reached.slice(1));
    }
  };
  visit(program, [], []);
  return nodes;
}

/** Every path that reaches a node: its own, then its aliases'. */
function pathsOf(n: CompletionNode): string[] {
  return [n.path, ...n.aliasPaths].map((p) => p.join(' '));
}

/** Every flag some command has values for. */
function valuedFlags(hints: CompletionHints): string[] {
  return [...new Set(hints.optionValues.flatMap((v) => v.flags))];
}

/**
 * The option values of given commands, grouped by those commands (their
 * paths, aliases' included), and those of every command.
 */
function valueGroups(nodes: readonly CompletionNode[], hints: CompletionHints): { own: { paths: string[]; entries: OptionValues[] }[]; every: OptionValues[] } {
  const byPath = new Map(nodes.map((n) => [n.path.join(' '), n] as const));
  const own = new Map<string, { paths: string[]; entries: OptionValues[] }>();
  const every: OptionValues[] = [];
  for (const v of hints.optionValues) {
    if (v.paths === undefined) {
      every.push(v);
      continue;
    }
    const paths = v.paths.flatMap((p) => {
      const node = byPath.get(p);
      return node ? pathsOf(node) : [];
    });
    if (paths.length === 0) continue;
    const group = own.get(paths.join('|')) ?? { paths, entries: [] };
    group.entries.push(v);
    own.set(paths.join('|'), group);
  }
  return { own: [...own.values()], every };
}

/** Options that take a value, so their value is not taken for a command word. */
function valueFlags(program: Command): string[] {
  const all: string[] = [];
  const visit = (cmd: Command): void => {
    for (const o of cmd.options) if (o.required || o.optional) all.push(...[o.short, o.long].filter((f): f is string => Boolean(f)));
    cmd.commands.forEach(visit);
  };
  visit(program);
  return [...new Set(all)];
}

/**
 * Options whose value is free text (`--filter`, `--url`): a word after one is
 * its value, so nothing is offered there. Options with known values are left
 * to `optionValues`; one whose value is optional anywhere (`query --fields`)
 * may be followed by a command's words or flags.
 */
function freeValueFlags(program: Command, hints: CompletionHints): string[] {
  const optional = new Set<string>();
  const visit = (cmd: Command): void => {
    for (const o of cmd.options) if (o.optional) [o.short, o.long].forEach((f) => f && optional.add(f));
    cmd.commands.forEach(visit);
  };
  visit(program);
  const known = new Set([...valuedFlags(hints), ...pathFlags(program, 'file'), ...pathFlags(program, 'dir')]);
  return valueFlags(program).filter((f) => !optional.has(f) && !known.has(f));
}

/** Options whose value is a path, by the value's name in their flags: `--into <file>` completes file names, `--data-dir <dir>` directories. */
function pathFlags(program: Command, kind: 'file' | 'dir'): string[] {
  const all: string[] = [];
  const visit = (cmd: Command): void => {
    for (const o of cmd.options) if (o.flags.includes(`<${kind}>`)) all.push(...[o.short, o.long].filter((f): f is string => Boolean(f)));
    cmd.commands.forEach(visit);
  };
  visit(program);
  return [...new Set(all)];
}

const HEADER = (shell: Shell): string =>
  [
    `# ${shell} completion for svc. Generated by \`npm run gen\` from the command tree; do not edit.`,
    `# Load it with: ${shell === 'fish' ? 'svc completion fish | source' : `source <(svc completion ${shell})`}`,
  ].join('\n');

function bashBody(program: Command, nodes: readonly CompletionNode[], hints: CompletionHints): string {
  const cases = (pick: (n: CompletionNode) => readonly string[]): string =>
    nodes
      .filter((n) => pick(n).length > 0)
      .map((n) => `    ${pathsOf(n).map((p) => `'${p}'`).join('|')}) echo '${pick(n).join(' ')}' ;;`)
      .join('\n');
  /** A case arm for these flags, left out when there are none. */
  const arm = (flags: readonly string[], body: string): string[] => (flags.length > 0 ? [`    ${flags.join('|')}) ${body} ;;`] : []);
  const valueCases = [
    ...arm(valuedFlags(hints), 'COMPREPLY=($(compgen -W "$(_svc_values "$cmdpath" "$prev")" -- "$cur")); return'),
    // Paths one a line (names with spaces stay whole); compopt, bash's only, marks them as file names (a / after a directory, quoting).
    ...arm(pathFlags(program, 'file'), `compopt -o filenames 2>/dev/null; local IFS=$'\\n'; COMPREPLY=($(compgen -f -- "$cur")); return`),
    ...arm(pathFlags(program, 'dir'), `compopt -o filenames 2>/dev/null; local IFS=$'\\n'; COMPREPLY=($(compgen -d -- "$cur")); return`),
    ...arm(freeValueFlags(program, hints), 'return'),
  ].join('\n');
  /** _svc_values PATH FLAG: the flag's values on that command (its own, else every command's). */
  const valueFlagCases = (entries: readonly OptionValues[], indent: string): string =>
    entries.map((v) => `${indent}${v.flags.join('|')}) echo '${v.values.join(' ')}'; return ;;`).join('\n');
  const { own, every } = valueGroups(nodes, hints);
  const values = [
    ...(own.length > 0
      ? [`  case "$1" in`, ...own.map((g) => `    ${g.paths.map((p) => `'${p}'`).join('|')})\n      case "$2" in\n${valueFlagCases(g.entries, '        ')}\n      esac ;;`), '  esac']
      : []),
    ...(every.length > 0 ? [`  case "$2" in\n${valueFlagCases(every, '    ')}\n  esac`] : []),
  ].join('\n');
  return `_svc_words() {
  case "$1" in
${cases((n) => n.subcommands)}
  esac
}
_svc_args() {
  case "$1" in
${cases((n) => n.argValues)}
  esac
}
_svc_flags() {
  case "$1" in
${cases((n) => n.flags)}
  esac
}
_svc_values() {
${values}
}
_svc() {
  # cmdpath, not path: zsh ties \$path to \$PATH.
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmdpath='' word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      ${valueFlags(program).join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    if [[ " $(_svc_words "$cmdpath") " == *" $word "* ]]; then cmdpath="\${cmdpath:+$cmdpath }$word"; fi
  done
  # After an option that takes a value: its values on this command, a path, or nothing.
  case "$prev" in
${valueCases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_svc_flags "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_svc_words "$cmdpath") $(_svc_args "$cmdpath")" -- "$cur"))
  fi
}
complete -F _svc svc
`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * fish: the bash logic in fish. `__svc_complete` walks `commandline -opc` as
 * `_svc` walks COMP_WORDS (skipping options and their values) to the command
 * path, e.g. `accounts query`, and offers that path's own words, arguments or
 * flags; after an option, its values on that path (`__svc_values`), a path
 * name, or nothing for free text.
 */
function fishBody(program: Command, nodes: readonly CompletionNode[], hints: CompletionHints): string {
  const summaries = new Map(nodes.flatMap((n) => pathsOf(n).map((p) => [p, n.summary] as const)));
  const cases = (pick: (n: CompletionNode) => readonly string[], line: (n: CompletionNode, words: readonly string[]) => string): string =>
    nodes
      .filter((n) => pick(n).length > 0)
      .map((n) => `    case ${pathsOf(n).map(fishQuote).join(' ')}\n      ${line(n, pick(n))}`)
      .join('\n');
  /** One case per distinct list (many verbs share their flags), naming every path that has it. */
  const grouped = (pick: (n: CompletionNode) => readonly string[]): string => {
    const paths = new Map<string, string[]>();
    for (const n of nodes.filter((m) => pick(m).length > 0)) {
      const key = pick(n).join(' ');
      paths.set(key, [...(paths.get(key) ?? []), ...pathsOf(n)]);
    }
    return [...paths]
      .map(([key, ps]) => `    case ${ps.map(fishQuote).join(' ')}\n      ${list(key.split(' '))}`)
      .join('\n');
  };
  const list = (words: readonly string[]): string => `printf '%s\\n' ${words.map(fishQuote).join(' ')}`;
  const described = (n: CompletionNode, words: readonly string[]): string =>
    `printf '%s\\t%s\\n' ${words.map((w) => `${fishQuote(w)} ${fishQuote(summaries.get([...n.path, w].join(' ')) ?? '')}`).join(' ')}`;
  /** A case for these flags, left out when there are none. */
  const arm = (flags: readonly string[], body: string): string[] => (flags.length > 0 ? [`    case ${flags.map(fishQuote).join(' ')}\n${body ? `      ${body}\n` : ''}      return`] : []);
  const valueCases = [
    ...arm(valuedFlags(hints), '__svc_values "$cmdpath" "$words[-1]"'),
    ...arm(pathFlags(program, 'file'), '__fish_complete_path "$cur"'),
    ...arm(pathFlags(program, 'dir'), '__fish_complete_directories "$cur"'),
    ...arm(freeValueFlags(program, hints), ''),
  ].join('\n');
  /** __svc_values PATH FLAG: the flag's values on that command (its own, else every command's). */
  const valueFlagCases = (entries: readonly OptionValues[], indent: string): string =>
    entries.map((v) => `${indent}case ${v.flags.map(fishQuote).join(' ')}\n${indent}  ${list(v.values)}\n${indent}  return`).join('\n');
  const { own, every } = valueGroups(nodes, hints);
  const values = [
    ...(own.length > 0
      ? ['  switch "$cmdpath"', ...own.map((g) => `    case ${g.paths.map(fishQuote).join(' ')}\n      switch "$flag"\n${valueFlagCases(g.entries, '        ')}\n      end`), '  end']
      : []),
    ...(every.length > 0 ? [`  switch "$flag"\n${valueFlagCases(every, '    ')}\n  end`] : []),
  ].join('\n');
  return `complete -c svc -e
function __svc_words --argument-names cmdpath
  switch "$cmdpath"
${cases((n) => n.subcommands, described)}
  end
end
function __svc_args --argument-names cmdpath
  switch "$cmdpath"
${grouped((n) => n.argValues)}
  end
end
function __svc_flags --argument-names cmdpath
  switch "$cmdpath"
${grouped((n) => n.flags)}
  end
end
function __svc_values --argument-names cmdpath flag
${values}
end
function __svc_complete
  set -l words (commandline -opc)
  set -l cur (commandline -ct)
  set -l cmdpath ''
  set -l skip 0
  for word in $words[2..-1]
    if test $skip = 1
      set skip 0
      continue
    end
    switch "$word"
      case ${valueFlags(program).map(fishQuote).join(' ')}
        set skip 1
        continue
      case '-*'
        continue
    end
    if contains -- "$word" (__svc_words "$cmdpath" | string replace -r '\\t.*' '')
      if test -n "$cmdpath"
        set cmdpath "$cmdpath $word"
      else
        set cmdpath "$word"
      end
    end
  end
  # After an option that takes a value: its values on this command, a path, or nothing.
  switch "$words[-1]"
${valueCases}
  end
  if string match -q -- '-*' "$cur"
    __svc_flags "$cmdpath"
  else
    __svc_words "$cmdpath"
    __svc_args "$cmdpath"
  end
end
complete -c svc -f -a '(__svc_complete)'
`;
}

/** The completion script for one shell. */
export function renderCompletion(shell: Shell, program: Command, hints: CompletionHints): string {
  const nodes = completionNodes(program, hints);
  switch (shell) {
    case 'bash':
      return `${HEADER('bash')}\n${bashBody(program, nodes, hints)}`;
    case 'zsh':
      return `#compdef svc\n${HEADER('zsh')}\nautoload -U +X bashcompinit && bashcompinit\n${bashBody(program, nodes, hints)}`;
    case 'fish':
      return `${HEADER('fish')}\n${fishBody(program, nodes, hints)}`;
  }
}

/** File names under completions/. */
export const completionFiles: Readonly<Record<Shell, string>> = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' };
