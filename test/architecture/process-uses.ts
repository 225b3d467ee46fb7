/**
 * Finds where a TypeScript file touches Node's global `process` (or imports
 * `node:process`), with the compiler's own parser: comments, strings, template
 * text, property names (`x.process`, `{ process: 1 }`) and type names
 * (`NodeJS.Process`) are not uses. dependency-cruiser sees imports only, so this
 * is how "only src/cli/main.ts touches process" is checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface ProcessUse {
  /** Path relative to the scanned root's parent, e.g. src/auth/chain.ts. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The expression or statement that touches it, e.g. `process.platform`. */
  readonly text: string;
}

const PROCESS_MODULES = new Set(['process', 'node:process']);

/** True when the identifier `process` here names the global (or a local that shadows it), not a property or a type member. */
function isValueReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) || ts.isEnumMember(p)) && p.name === id) return false;
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) && p.propertyName === id) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  return true;
}

function moduleName(node: ts.Node): string | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) return node.moduleReference.expression.text;
  if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
    const arg = node.arguments[0];
    if (arg && ts.isStringLiteralLike(arg)) return arg.text;
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) return node.argument.literal.text;
  return undefined;
}

/** Every place in one file's text that touches `process`. */
export function processUses(file: string, text: string): ProcessUse[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const uses: ProcessUse[] = [];
  const report = (node: ts.Node, shown: ts.Node): void => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    uses.push({ file, line: line + 1, column: character + 1, text: shown.getText(source).split('\n')[0]!.slice(0, 80) });
  };
  const visit = (node: ts.Node): void => {
    const mod = moduleName(node);
    if (mod !== undefined && PROCESS_MODULES.has(mod)) report(node, node);
    else if (ts.isIdentifier(node) && node.text === 'process' && isValueReference(node)) {
      // Show the member it reads, if any: process.env rather than process (typeof process.env in a type too).
      const p = node.parent;
      report(node, ((ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression === node) || (ts.isQualifiedName(p) && p.left === node) ? p : node);
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === 'process' && ts.isIdentifier(node.expression) && node.expression.text === 'globalThis') report(node, node);
    else if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'globalThis' && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'process') report(node, node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return /\.[cm]?ts$/.test(e.name) ? [path] : [];
  });
}

/** Every use of `process` under `root` (a directory such as `src`), paths relative to the working directory. */
export function scanProcessUses(root: string): ProcessUse[] {
  return tsFiles(root)
    .sort()
    .flatMap((path) => processUses(relative(process.cwd(), path), readFileSync(path, 'utf8')));
}
