import { questionScope, withoutInstructions } from './question-scope';

describe('questionScope', () => {
  it('tells list and compare questions from single-document ones', () => {
    expect(questionScope('Which of the accidents were fatal? Name the locations.')).toBe('list');
    expect(questionScope('Which accidents happened on December 8, 2007?')).toBe('list');
    expect(questionScope('List all reports that mention icing.')).toBe('list');
    expect(questionScope('Who had more flight time: the pilot in A or the pilot in B?')).toBe('compare');
    expect(questionScope('Compare the net sales of Apple and Microsoft.')).toBe('compare');
    expect(questionScope('Of the accidents at A and B, which aircraft had the more powerful engine?')).toBe(
      'compare',
    );
    for (const q of [
      "What was the pilot's total flight time in the accident near Tallahassee?",
      'How do I get MetaPost to write SVG files instead of PostScript?',
      'latex set all margins 2cm',
      'Which unit do the DocBook XSL stylesheets assume for a dimension given without units?',
    ])
      expect(questionScope(q)).toBe('single');
  });
});

describe('withoutInstructions', () => {
  it('drops answer instructions after the question, keeps the question', () => {
    expect(withoutInstructions('Which of the accidents were fatal? Name the locations.')).toBe(
      'Which of the accidents were fatal?',
    );
    expect(withoutInstructions('Give me the default. Why is it 2cm? List the options.')).toBe(
      'Give me the default. Why is it 2cm?',
    );
    expect(withoutInstructions('latex set all margins 2cm')).toBe('latex set all margins 2cm');
  });
});
