// The site's theme: VitePress's default theme, with the styles of the live examples, the live
// examples following the site's colour scheme (live-theme.ts) and each element page's
// attribute playground (<ElementPlayground tag="pg-card-form" />).
import type {Theme} from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import ElementPlayground from './ElementPlayground.vue';
import {useLiveTheme} from './live-theme.js';
import './live-example.css';

export default {
  extends: DefaultTheme,
  enhanceApp({app}) {
    app.component('ElementPlayground', ElementPlayground);
  },
  setup() {
    useLiveTheme();
  },
} satisfies Theme;
