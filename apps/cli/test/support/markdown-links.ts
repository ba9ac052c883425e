import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/** A link that does not resolve inside the repository: where it is, what it says, and why. */
export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** A link or image destination found in a Markdown file, with its line (1-based). */
interface FoundLink {
  line: number;
  target: string;
}

/**
 * Files whose text `bench/src/report.ts` pastes into BENCHMARKS.md at the repository root:
 * their relative links are written, and resolved here, from the root.
 */
const BENCHMARKS_PARTS = /^bench\/(notes\/[^/]+\.md|ANALYSIS\.md)$/;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Splits a file into lines, each marked as inside a fenced code block or not. */
function linesOf(text: string): { text: string; fenced: boolean }[] {
  const lines: { text: string; fenced: boolean }[] = [];
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const opening = FENCE.exec(line);
    if (fence === undefined && opening !== null) {
      fence = opening[1]!;
      lines.push({ text: line, fenced: true });
    } else if (fence !== undefined) {
      const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
      if (closing.test(line)) fence = undefined;
      lines.push({ text: line, fenced: true });
    } else {
      lines.push({ text: line, fenced: false });
    }
  }
  return lines;
}

/** Replaces every code span of a block (which may run over lines) with spaces, keeping line breaks. */
function withoutCodeSpans(block: string): string {
  return block.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** The text a heading shows: links by their text, code spans by their content, no emphasis marks. */
function headingText(raw: string): string {
  return raw
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/\*+/g, '')
            .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'),
    )
    .join('')
    .trim();
}

/** GitHub's anchor of a heading: lowercase, punctuation removed but hyphens and underscores, spaces as hyphens. */
export function slugOf(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (a repeated one as `-1`, `-2`, ...) and HTML ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const { text: line, fenced } of linesOf(text)) {
    if (fenced) continue;
    const heading = ATX_HEADING.exec(line);
    if (heading !== null) {
      const slug = slugOf(heading[2] ?? '');
      let unique = slug;
      for (let n = 1; anchors.has(unique); n += 1) unique = `${slug}-${n}`;
      anchors.add(unique);
    }
    for (const match of line.matchAll(/<[a-z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(match[1]!);
  }
  return anchors;
}

/**
 * Every link and image destination of a Markdown file outside code: inline links and images,
 * reference definitions, autolinks (`<https://...>`), bare URLs that GitHub turns into links,
 * and `href`/`src` of inline HTML.
 */
export function linksOf(text: string): FoundLink[] {
  const found: (FoundLink & { offset: number })[] = [];
  const lines = linesOf(text);
  let start = 0;
  // blocks of prose between blank lines and fences: a code span never crosses one
  while (start < lines.length) {
    if (lines[start]!.fenced || lines[start]!.text.trim() === '') {
      start += 1;
      continue;
    }
    let end = start;
    while (end < lines.length && !lines[end]!.fenced && lines[end]!.text.trim() !== '') end += 1;
    let block = withoutCodeSpans(lines.slice(start, end).map((line) => line.text).join('\n'));
    const lineAt = (index: number) => start + 1 + (block.slice(0, index).match(/\n/g)?.length ?? 0);
    const take = (pattern: RegExp, group: number, prefix = '') => {
      // no named groups here, so the offset is the second last argument
      block = block.replace(pattern, (match: string, ...rest: unknown[]) => {
        const target = group === 0 ? match : (rest[group - 1] as string);
        const offset = rest.at(-2) as number;
        found.push({ line: lineAt(offset), offset: start * 1e6 + offset, target: prefix + target.replace(/^<|>$/g, '') });
        return match.replace(/[^\n]/g, ' ');
      });
    };
    // [text](destination "title"): the destination in <...>, or without spaces with balanced parentheses
    take(/\]\(\s*(<[^>\n]*>|(?:[^\s()]|\([^\s()]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g, 1);
    take(/^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm, 1);
    take(/<([a-z][a-z0-9+.-]{1,31}:[^\s<>]*)>/gi, 1);
    take(/<[^>@\s]+@[^>\s]+\.[^>\s]+>/g, 0, 'mailto:');
    take(/<[a-z][^>]*\s(?:href|src)\s*=\s*["']([^"']*)["'][^>]*>/gi, 1);
    take(/(?:https?:\/\/|www\.)[^\s<]*[^\s<?!.,:*_~)]/gi, 0);
    start = end;
  }
  return found.sort((a, b) => a.offset - b.offset).map(({ line, target }) => ({ line, target }));
}

/**
 * Checks every link of `files` (repository path -> text): no link may point outside the
 * repository (an absolute URL, a path from `/`, a `..` past the root), a relative path must be
 * a file or folder of `paths`, and an anchor must be a heading (or HTML id) of its Markdown
 * target; a line anchor (`#L10`, `#L10-L20`) is allowed on any other file.
 */
export function checkLinks(files: ReadonlyMap<string, string>, paths: ReadonlySet<string>): LinkProblem[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let set = anchors.get(file);
    if (set === undefined) {
      set = anchorsOf(files.get(file) ?? '');
      anchors.set(file, set);
    }
    return set;
  };
  const problems: LinkProblem[] = [];
  for (const [file, text] of files) {
    const base = BENCHMARKS_PARTS.test(file) ? '' : posix.dirname(file);
    for (const { line, target } of linksOf(text)) {
      const problem = (reason: string) => problems.push({ file, line, target, reason });
      if (target === '') {
        problem('is an empty link');
        continue;
      }
      if (SCHEME.test(target) || target.startsWith('//') || /^www\./i.test(target)) {
        problem('points outside the repository: name it in plain text instead');
        continue;
      }
      if (target.startsWith('/')) {
        problem('starts at / : write it relative to this file');
        continue;
      }
      const hash = target.indexOf('#');
      const pathPart = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : target.slice(hash + 1);
      let resolved = file;
      if (pathPart !== '') {
        let decoded: string;
        try {
          decoded = decodeURIComponent(pathPart);
        } catch {
          problem('is not valid percent-encoding');
          continue;
        }
        resolved = posix.normalize(posix.join(base === '' ? '.' : base, decoded)).replace(/\/$/, '');
        if (resolved === '..' || resolved.startsWith('../')) {
          problem('leaves the repository');
          continue;
        }
        if (!paths.has(resolved) && resolved !== '.') {
          problem(`names ${resolved}, which is not in the repository`);
          continue;
        }
      }
      if (anchor === undefined) continue;
      if (/\.md$/i.test(resolved)) {
        if (!anchorsIn(resolved).has(decodeURIComponent(anchor))) problem(`has no heading #${anchor} in ${resolved}`);
      } else if (!/^L\d+(-L\d+)?$/.test(anchor)) {
        problem(`has an anchor, but ${resolved} is not a Markdown file`);
      }
    }
  }
  return problems;
}

/** A file and every folder above it. */
function withFolders(files: Iterable<string>): Set<string> {
  const paths = new Set<string>();
  for (const file of files) {
    paths.add(file);
    for (let folder = posix.dirname(file); folder !== '.' && !paths.has(folder); folder = posix.dirname(folder)) paths.add(folder);
  }
  return paths;
}

/** Files of a checkout without git (an unpacked archive): everything but dependencies and build output. */
function walk(root: string, folder = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || ['node_modules', 'dist'].includes(entry.name)) continue;
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) files.push(...walk(root, path));
    else files.push(path);
  }
  return files;
}

/**
 * The repository's files as git knows them (tracked, and new ones not ignored, so a page not yet
 * added is checked too), those that exist on disk; without git, a walk of the folder.
 */
export function repositoryFiles(root: string): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\0')
      .filter((path) => path !== '');
  } catch {
    listed = walk(root);
  }
  return [...new Set(listed)].filter((path) => !path.split('/').includes('node_modules') && existsSync(join(root, path)) && statSync(join(root, path)).isFile());
}

/** Checks every Markdown file of the repository at `root`. */
export function checkRepositoryLinks(root: string): { markdown: string[]; problems: LinkProblem[] } {
  const files = repositoryFiles(root);
  const markdown = files.filter((path) => /\.md$/i.test(path)).sort();
  const texts = new Map(markdown.map((path) => [path, readFileSync(join(root, path), 'utf8')]));
  return { markdown, problems: checkLinks(texts, withFolders(files)) };
}
