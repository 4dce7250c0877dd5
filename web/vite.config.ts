// Vite build and dev server for Easel's web app, plus the Vitest unit-test settings.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/** Where `easel serve` listens by default (DESIGN.md: EASEL_ADDR). */
const BACKEND = 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      // The app, and the operators' API page (/api/docs).
      input: { main: 'index.html', apiDocs: 'api-docs.html' },
    },
  },
  server: {
    proxy: {
      '/api': { target: BACKEND, changeOrigin: false },
      '/ws': { target: BACKEND, ws: true, changeOrigin: false },
      '/log': { target: BACKEND, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/api': { target: BACKEND, changeOrigin: false },
      '/ws': { target: BACKEND, ws: true, changeOrigin: false },
      '/log': { target: BACKEND, changeOrigin: false },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    reporters: ['default', './vitest.summary.ts'],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
