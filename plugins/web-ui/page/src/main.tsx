import './styles.css';
import { render } from 'preact';
import { App } from './app.js';
import { LiveStore } from './live-store.js';

const store = new LiveStore();
store.connect();
render(<App store={store} />, document.getElementById('app')!);
