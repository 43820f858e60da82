// ESLint for the web client (frontend/): plain ES modules run by the browser as they are, no build step.
// `make lint` runs it (npx eslint frontend).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["frontend/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": "error",
    },
  },
];
