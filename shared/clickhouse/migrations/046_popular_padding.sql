-- A list shorter than REC_TOP_K is filled up with the most followed profiles, after its
-- scored candidates, with score 0 (pipeline/materialize/popular-padding.ts); a profile with
-- no evidence at all gets only those, no longer scored a millionth of their popularity.

ALTER TABLE recommendations COMMENT COLUMN score 'Combined score: the weighted sum of the four signal scores below; 0 for the most followed profiles that fill a list after its scored candidates';

ALTER TABLE recommendations COMMENT COLUMN fof_score 'Signal 4: sum over users who follow the candidate and whom the profile follows or is followed by, of 1 / ln(e + their follow count), plus the run''s follows_you_weight (mat_scoring_fit) if the candidate follows the profile; 0 for a most followed profile that fills the list';
