// The `local/layers` lint rule: each layer (a folder, see folders.mjs) may
// import only the layers its entry in eslint.config.js's LAYERS table names,
// and only a layer marked `spawns` may import the modules that start processes.
// Modelled on VS Code's code-layering / code-import-patterns rules; our own code.
import path from 'node:path';
import { folderOf } from './folders.mjs';

/** Modules that start processes: only the supervisor (electron/exec) may use them. */
export const PROCESS_MODULES = new Set(['child_process', 'node:child_process', 'node-pty']);

function sourcesOf(node) {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
    case 'ImportExpression':
      return node.source && node.source.type === 'Literal' && typeof node.source.value === 'string' ? [node.source] : [];
    case 'TSImportEqualsDeclaration':
      return node.moduleReference.type === 'TSExternalModuleReference' ? [node.moduleReference.expression] : [];
    case 'CallExpression':
      return node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal' ? [node.arguments[0]] : [];
    default:
      return [];
  }
}

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Which layer may import which (the LAYERS table in eslint.config.js).' },
    schema: [{ type: 'object', additionalProperties: { type: 'object' } }],
    messages: {
      layer: '{{from}} may not import {{to}} (it may import: {{allowed}}). See LAYERS in eslint.config.js.',
      outside: '{{from}} may not import {{target}}: production code imports no tests, fixtures or tooling.',
      spawn: '{{module}} starts processes: only electron/exec may import it (ask the supervisor instead).',
      unlisted: '{{from}} is a layer missing from LAYERS in eslint.config.js: add its row.',
    },
  },
  create(context) {
    const table = context.options[0] ?? {};
    const repoRoot = context.cwd;
    const file = path.relative(repoRoot, context.filename);
    const from = folderOf(file);
    if (from === null) return {};
    const entry = table[from];
    const check = (node) => {
      if (!entry) {
        if (node.type === 'Program') context.report({ node, messageId: 'unlisted', data: { from } });
        return;
      }
      for (const source of sourcesOf(node)) {
        const specifier = source.value;
        if (PROCESS_MODULES.has(specifier) && !entry.spawns) {
          context.report({ node: source, messageId: 'spawn', data: { module: specifier } });
          continue;
        }
        if (!specifier.startsWith('.')) continue;
        const target = path.relative(repoRoot, path.resolve(path.dirname(context.filename), specifier));
        const to = folderOf(target);
        if (to === null) {
          // The package manifest (the app's version) is data, not code of another layer.
          const manifest = target === 'package.json';
          if (!manifest && !target.startsWith('..') && !target.startsWith('node_modules')) context.report({ node: source, messageId: 'outside', data: { from, target } });
          continue;
        }
        if (to === from || entry.imports.includes(to)) continue;
        context.report({ node: source, messageId: 'layer', data: { from, to, allowed: entry.imports.join(', ') || 'no other layer' } });
      }
    };
    return {
      Program: check,
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
      TSImportEqualsDeclaration: check,
      CallExpression: check,
    };
  },
};
