ALTER TABLE orders ADD COLUMN amount numeric(12, 2);
