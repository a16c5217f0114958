// The site's theme: VitePress's default theme, with the styles of the live examples.
import DefaultTheme from 'vitepress/theme';
import './live-example.css';

export default DefaultTheme;
