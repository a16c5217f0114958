// The behaviour every pg-checkout element shares, as one suite each element's test file
// calls (as Shoelace's form-control-base-tests.ts does for its form controls): its tag is
// defined once and a second definition (another copy of pg-checkout on the page) is left
// alone; as first rendered it is accessible (axe); setting its properties from script
// dispatches no pg-* event (events come from the customer's actions, never from the page's
// own code); and the attributes it reflects follow their properties, both ways.
import {expect} from '@open-wc/testing';
import type {LitElement} from 'lit';
import {defineElement} from '../../src/internal/define-element.js';
import {ALL_EVENTS, recordEvents, tick} from './helpers.js';

export interface ElementBase<E extends LitElement> {
  tag: string;
  /** The element's class, as it registers itself. */
  element: CustomElementConstructor;
  /** A connected element as a page first has it. */
  create(): Promise<E>;
  /** Properties a page sets from script (each to a value other than its default). */
  properties: Partial<Record<keyof E & string, unknown>>;
  /** Each reflected property, with two values it may take (other than its default). */
  reflected: Partial<Record<keyof E & string, {attribute: string; values: [string, string]}>>;
}

export function elementBaseTests<E extends LitElement>(base: ElementBase<E>): void {
  describe(`<${base.tag}>: what every element does`, () => {
    it('is defined once: a second definition of its tag leaves the first in place', async () => {
      expect(customElements.get(base.tag)).to.equal(base.element);
      class SecondCopy extends HTMLElement {}
      // In development the second copy says so once (console.warn): kept out of the log.
      const warn = console.warn;
      console.warn = () => undefined;
      try {
        expect(() => defineElement(base.tag)(SecondCopy)).to.not.throw();
      } finally {
        console.warn = warn;
      }
      expect(customElements.get(base.tag)).to.equal(base.element);
      const el = await base.create();
      expect(el).to.be.instanceOf(base.element);
    });

    it('is accessible as first rendered', async () => {
      const el = await base.create();
      await expect(el).to.be.accessible();
    });

    it('dispatches no event when its properties are set from script', async () => {
      const el = await base.create();
      const names = Object.keys(base.properties);
      expect(names.length, 'properties to set').to.be.above(0);
      // At the document (the events bubble and are composed) and on the element itself.
      const rec = recordEvents(ALL_EVENTS);
      const own: Event[] = [];
      const listener = (e: Event) => own.push(e);
      const types = ALL_EVENTS;
      for (const type of types) el.addEventListener(type, listener);
      try {
        for (const name of names) {
          (el as unknown as Record<string, unknown>)[name] = (
            base.properties as Record<string, unknown>
          )[name];
        }
        await el.updateComplete;
        await tick();
      } finally {
        rec.stop();
        for (const type of types) el.removeEventListener(type, listener);
      }
      expect(rec.events.map((e) => e.type)).to.deep.equal([]);
      expect(own.map((e) => e.type)).to.deep.equal([]);
    });

    // Only for an element that reflects some property (<pg-3ds-redirect> reflects none).
    if (Object.keys(base.reflected).length === 0) return;
    it('reflects its reflected properties to their attributes, and reads them back', async () => {
      for (const [name, spec] of Object.entries(base.reflected)) {
        const {attribute, values} = spec as {attribute: string; values: [string, string]};
        const el = await base.create();
        const props = el as unknown as Record<string, unknown>;
        props[name] = values[0];
        await el.updateComplete;
        expect(el.getAttribute(attribute), `${name} → ${attribute}`).to.equal(values[0]);
        el.setAttribute(attribute, values[1]);
        await el.updateComplete;
        expect(props[name], `${attribute} → ${name}`).to.equal(values[1]);
        expect(el.getAttribute(attribute)).to.equal(values[1]);
      }
    });
  });
}
