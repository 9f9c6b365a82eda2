import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * .dockerignore matching as the Docker CLI and BuildKit do it (moby/patternmatcher): patterns
 * are cleaned paths relative to the context root, `*` and `?` stay within one path segment,
 * `**` spans any number of segments, `!` re-includes; the last pattern that matches a path or
 * one of its parent directories decides.
 */
type Pattern = Readonly<{ exclusion: boolean; regex: RegExp; text: string }>;

export type DockerIgnore = Readonly<{
  /** Whether the file or directory at this context-relative path is left out of the build context. */
  excludes(path: string): boolean;
  /** Paths (relative, `/`-separated) the build context would hold, walking `root`. */
  contextFiles(root: string): string[];
}>;

export function parseDockerIgnore(text: string): DockerIgnore {
  const patterns: Pattern[] = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const exclusion = line.startsWith("!");
      const cleaned = clean(exclusion ? line.slice(1).trim() : line);
      return { exclusion, regex: compile(cleaned), text: cleaned };
    });

  const excludes = (path: string): boolean => {
    const file = clean(path);
    const parents = file.split("/").slice(0, -1);
    let matched = false;
    for (const pattern of patterns) {
      // A `!` pattern only matters once something excluded the path, a plain one only before.
      if (pattern.exclusion !== matched) continue;
      let match = pattern.regex.test(file);
      for (let i = 1; !match && i <= parents.length; i++) match = pattern.regex.test(parents.slice(0, i).join("/"));
      if (match) matched = !pattern.exclusion;
    }
    return matched;
  };

  /** Whether a `!` pattern could match something inside `dir`: its leading segments match dir's, glob by glob. */
  const couldReinclude = (pattern: Pattern, dir: string): boolean => {
    const wanted = pattern.text.split("/");
    const segments = dir.split("/");
    if (wanted.length <= segments.length && !wanted.includes("**")) return false;
    for (let i = 0; i < segments.length; i++) {
      const glob = wanted[i];
      if (glob === undefined || glob === "**") return glob === "**";
      if (!compile(glob).test(segments[i] ?? "")) return false;
    }
    return true;
  };

  /** A directory is walked unless it is excluded and no `!` pattern could re-include something inside it. */
  const mayHoldIncluded = (dir: string): boolean => !excludes(dir) || patterns.some((p) => p.exclusion && couldReinclude(p, dir));

  const contextFiles = (root: string): string[] => {
    const files: string[] = [];
    const walk = (relative: string) => {
      for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
        const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) {
          if (mayHoldIncluded(path)) walk(path);
        } else if (!excludes(path)) {
          files.push(path);
        }
      }
    };
    walk("");
    return files.sort();
  };

  return Object.freeze({ excludes, contextFiles });
}

function clean(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

function compile(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? "";
    if (char === "*" && pattern[i + 1] === "*") {
      i += 1;
      if (pattern[i + 1] === "/") {
        i += 1;
        source += "(?:.*/)?";
      } else {
        source += ".*";
      }
    } else if (char === "*") {
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end === -1) {
        source += "\\[";
      } else {
        source += `[${pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else if (char === "\\" && i + 1 < pattern.length) {
      i += 1;
      source += escapeRegex(pattern[i] ?? "");
    } else {
      source += escapeRegex(char);
    }
  }
  return new RegExp(`^${source}$`);
}

function escapeRegex(char: string): string {
  return char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
}
