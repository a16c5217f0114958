// Configuration of @custom-elements-manifest/analyzer (`npm run build` writes
// custom-elements.json with it, from the elements' JSDoc). The analyzer reads the sources;
// the plugins below make the manifest describe the published package instead:
//   - registration: the elements are defined with our `@defineElement('tag')`
//     (src/internal/define-element.ts), which the analyzer does not know; each becomes a
//     `custom-element-definition` export, as `@customElement` would.
//   - events: the analyzer adds an unnamed event for `dispatchEvent(new PgXEvent({...}))`
//     and one named after the argument for `dispatchEvent(new PgXEvent(detail))`. Each
//     event is named by its class instead (the name the class passes to `super`), one
//     entry per name, with the `@event` JSDoc's description; a JSDoc name that disagrees
//     with its class, or an event that cannot be named, fails the build.
//   - members: private and `#` members are implementation, not API, and are left out.
//   - state: the elements declare their reactive properties in `static properties`; the
//     analyzer gives every entry an attribute, those with `state: true` (internal reactive
//     state, which Lit never observes as an attribute) included. Those lose it.
//   - paths: `src/x/y.ts` (not published) becomes `dist/browser/x/y.js`.
// test/pack/manifest.test.ts checks the result against the built elements.

const ELEMENT_MODULES = [
  'src/card-form/card-form.ts',
  'src/fingerprint/fingerprint.ts',
  'src/three-ds-redirect/three-ds-redirect.ts',
  'src/events/events.ts',
];

/** `src/x/y.ts` → `dist/browser/x/y.js`; anything else unchanged. */
export function publishedPath(path) {
  const m = /^\/?src\/(.+)\.ts$/.exec(path);
  return m ? `dist/browser/${m[1]}.js` : path;
}

function registrationPlugin() {
  return {
    name: 'pg-define-element',
    analyzePhase({ts, node, moduleDoc}) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      for (const modifier of node.modifiers ?? []) {
        if (!ts.isDecorator(modifier) || !ts.isCallExpression(modifier.expression)) continue;
        const call = modifier.expression;
        if (!ts.isIdentifier(call.expression) || call.expression.text !== 'defineElement') continue;
        const [tag] = call.arguments;
        if (!tag || !ts.isStringLiteral(tag)) {
          throw new Error(`${moduleDoc.path}: @defineElement needs a literal tag name`);
        }
        moduleDoc.exports = [
          ...(moduleDoc.exports ?? []),
          {
            kind: 'custom-element-definition',
            name: tag.text,
            declaration: {name: node.name.text, module: moduleDoc.path},
          },
        ];
      }
    },
  };
}

function eventsPlugin() {
  /** Event class name → the event name it passes to `super` (`PgSuccessEvent` → `pg-success`). */
  const eventNames = new Map();
  return {
    name: 'pg-event-names',
    analyzePhase({ts, node}) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const extendsEvent = node.heritageClauses?.some((h) =>
        h.types.some((t) => ts.isIdentifier(t.expression) && t.expression.text === 'Event'),
      );
      if (!extendsEvent) return;
      const visit = (n) => {
        if (
          ts.isCallExpression(n) &&
          n.expression.kind === ts.SyntaxKind.SuperKeyword &&
          n.arguments[0] &&
          ts.isStringLiteral(n.arguments[0])
        ) {
          eventNames.set(node.name.text, n.arguments[0].text);
        }
        ts.forEachChild(n, visit);
      };
      visit(node);
    },
    packageLinkPhase({customElementsManifest}) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          if (!decl.events) continue;
          const byName = new Map();
          for (const event of decl.events) {
            const typeName = event.type?.text;
            const named = eventNames.get(typeName);
            const fromJsDoc = event.description !== undefined;
            if (fromJsDoc && named !== undefined && event.name !== named) {
              throw new Error(
                `${mod.path}: ${decl.name} documents @event {${typeName}} ${event.name}, but ${typeName} is named ${named}`,
              );
            }
            const name = named ?? (fromJsDoc ? event.name : undefined);
            if (!name) {
              throw new Error(
                `${mod.path}: ${decl.name} dispatches an event the manifest cannot name (${typeName ?? 'no type'}); document it with @event {Type} name`,
              );
            }
            const seen = byName.get(name);
            byName.set(name, {
              ...seen,
              ...event,
              name,
              ...(seen?.description ? {description: seen.description} : {}),
            });
          }
          decl.events = [...byName.values()].map(({name, type, description}) => ({
            name,
            ...(type ? {type} : {}),
            ...(description ? {description} : {}),
          }));
        }
      }
    },
  };
}

function publicMembersPlugin() {
  return {
    name: 'pg-public-members',
    packageLinkPhase({customElementsManifest}) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          if (decl.members) {
            decl.members = decl.members.filter(
              (m) => m.privacy !== 'private' && !m.name.startsWith('#'),
            );
          }
        }
      }
    },
  };
}

function internalStatePlugin() {
  /** Class name → the names its `static properties` declares with `state: true`. */
  const states = new Map();
  return {
    name: 'pg-internal-state',
    analyzePhase({ts, node}) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      for (const member of node.members) {
        const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        if (
          !isStatic ||
          !ts.isPropertyDeclaration(member) ||
          member.name.getText() !== 'properties'
        )
          continue;
        const init = member.initializer;
        if (!init || !ts.isObjectLiteralExpression(init)) continue;
        const names = new Set();
        for (const prop of init.properties) {
          if (!ts.isPropertyAssignment(prop) || !ts.isObjectLiteralExpression(prop.initializer))
            continue;
          const state = prop.initializer.properties.some(
            (o) =>
              ts.isPropertyAssignment(o) &&
              o.name.getText() === 'state' &&
              o.initializer.kind === ts.SyntaxKind.TrueKeyword,
          );
          if (state) names.add(prop.name.getText());
        }
        states.set(node.name.text, names);
      }
    },
    packageLinkPhase({customElementsManifest}) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          const names = states.get(decl.name);
          if (!names) continue;
          decl.attributes = decl.attributes?.filter((a) => !names.has(a.fieldName ?? a.name));
          for (const m of decl.members ?? []) {
            if (names.has(m.name)) {
              delete m.attribute;
              delete m.reflects;
            }
          }
        }
      }
    },
  };
}

function publishedPathsPlugin() {
  const rewrite = (value) => {
    if (Array.isArray(value)) return value.forEach(rewrite);
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'path' || key === 'module') && typeof inner === 'string') {
        value[key] = publishedPath(inner);
      } else {
        rewrite(inner);
      }
    }
  };
  return {
    name: 'pg-published-paths',
    packageLinkPhase({customElementsManifest}) {
      rewrite(customElementsManifest.modules);
    },
  };
}

export default {
  globs: ELEMENT_MODULES,
  exclude: ['src/**/*.styles.ts'],
  outdir: '.',
  litelement: true,
  packagejson: false,
  plugins: [
    registrationPlugin(),
    eventsPlugin(),
    internalStatePlugin(),
    publicMembersPlugin(),
    publishedPathsPlugin(),
  ],
};
